/**
 * gRPC server reflection (https://github.com/grpc/grpc/blob/master/doc/server-reflection.md), so that
 * grpcurl, `buf curl`, Postman and grpc-js tooling can list and describe a service's methods without
 * its .proto files. Both protocol versions are served — `grpc.reflection.v1.ServerReflection` and
 * the older `grpc.reflection.v1alpha.ServerReflection` that many clients still ask for first — on
 * every service's RPC port: {@link registerReflection} is called by the kit's server for every
 * process, after the process's own services and the health service.
 *
 * What it describes: the services registered on the router (and the reflection services
 * themselves), and every file they need — their own .proto files and those files' transitive
 * imports (fop/common/v1/common.proto, the well-known types, ...), as the generated code's
 * descriptors (`DescFile.proto`) carry them, serialized. Source comments are not included: the
 * generated code does not embed them.
 *
 * The answers follow grpc-go's reference implementation: a file request is answered with the file
 * and its transitive imports, leaving out imports already sent on the same stream (the protocol
 * allows it; clients cache what they received); an unknown file, symbol or extension is an
 * `error_response` with NOT_FOUND, the stream goes on; a request naming none of the known kinds
 * ends the stream with INVALID_ARGUMENT. Symbols are every name a .proto declares: packages'
 * messages, enums, enum values (in their enum's scope), fields, oneofs, extensions, services and
 * methods.
 *
 * Reflection calls, like health checks, need no tenant headers (server.ts): they describe the
 * schema only, never data.
 */
import {
  type DescExtension,
  type DescFile,
  type DescMessage,
  type DescService,
  toBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import * as v1 from "@fop/proto/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "@fop/proto/grpc/reflection/v1alpha/reflection_pb.js";

/** Fully-qualified names of the two reflection services. */
export const REFLECTION_SERVICES: readonly string[] = [
  v1.ServerReflection.typeName,
  v1alpha.ServerReflection.typeName,
];

/** A reflection request as both protocol versions shape it. */
type ReflectionRequest = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;

/** The `message_response` of an answer (the same in both versions, but for the message type names). */
export type ReflectionAnswer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

/** What reflection knows about one process: its services, the files they need, their symbols. */
export interface ReflectionIndex {
  /** Fully-qualified service names, sorted. */
  readonly services: readonly string[];
  /** Every file reflection can answer, by file name (e.g. "fop/common/v1/common.proto"). */
  readonly files: ReadonlyMap<string, DescFile>;
  /**
   * The answer to one request. `sent` holds the names of the files already sent on the stream
   * (updated here): imports among them are left out of file answers.
   */
  answer(request: ReflectionRequest, sent: Set<string>): ReflectionAnswer;
}

const notFound = (errorMessage: string): ReflectionAnswer => ({
  case: "errorResponse",
  value: { errorCode: Code.NotFound, errorMessage },
});

/** The index of `services` (the reflection services are added). */
export function createReflectionIndex(services: Iterable<DescService>): ReflectionIndex {
  const serviceNames = new Set<string>();
  const files = new Map<string, DescFile>();
  const symbols = new Map<string, DescFile>();
  /** extendee type name -> extension number -> extension */
  const extensions = new Map<string, Map<number, DescExtension>>();
  const messages = new Set<string>();

  const addExtension = (ext: DescExtension) => {
    symbols.set(ext.typeName, ext.file);
    let byNumber = extensions.get(ext.extendee.typeName);
    if (!byNumber) {
      byNumber = new Map();
      extensions.set(ext.extendee.typeName, byNumber);
    }
    byNumber.set(ext.number, ext);
  };
  const addMessage = (m: DescMessage) => {
    symbols.set(m.typeName, m.file);
    messages.add(m.typeName);
    for (const f of m.fields) symbols.set(`${m.typeName}.${f.name}`, m.file);
    // Synthetic oneofs (proto3 `optional`) are declared names too.
    for (const o of m.proto.oneofDecl) symbols.set(`${m.typeName}.${o.name}`, m.file);
    for (const e of m.nestedEnums) addEnum(e.typeName, e.values, m.typeName, m.file);
    for (const n of m.nestedMessages) addMessage(n);
    // Map entries (Category.NameLocalizedEntry) are declared messages, but not among nestedMessages.
    for (const n of m.proto.nestedType) {
      if (!n.options?.mapEntry) continue;
      symbols.set(`${m.typeName}.${n.name}`, m.file);
      messages.add(`${m.typeName}.${n.name}`);
      for (const f of n.field) symbols.set(`${m.typeName}.${n.name}.${f.name}`, m.file);
    }
    for (const x of m.nestedExtensions) addExtension(x);
  };
  // Enum values are siblings of their enum in protobuf's scoping (pkg.VALUE, pkg.Msg.VALUE).
  const addEnum = (typeName: string, values: readonly { name: string }[], scope: string, file: DescFile) => {
    symbols.set(typeName, file);
    for (const v of values) symbols.set(scope ? `${scope}.${v.name}` : v.name, file);
  };
  const addFile = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const dep of file.dependencies) addFile(dep);
    for (const m of file.messages) addMessage(m);
    for (const e of file.enums) addEnum(e.typeName, e.values, file.proto.package, file);
    for (const x of file.extensions) addExtension(x);
    for (const s of file.services) {
      symbols.set(s.typeName, file);
      for (const m of s.methods) symbols.set(`${s.typeName}.${m.name}`, file);
    }
  };
  for (const s of [...services, v1.ServerReflection, v1alpha.ServerReflection]) {
    serviceNames.add(s.typeName);
    addFile(s.file);
  }

  const encoded = new Map<DescFile, Uint8Array>();
  const encode = (file: DescFile): Uint8Array => {
    let bytes = encoded.get(file);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      encoded.set(file, bytes);
    }
    return bytes;
  };
  /** `file`, then its transitive imports not yet sent on this stream (breadth-first). */
  const withDependencies = (file: DescFile, sent: Set<string>): ReflectionAnswer => {
    const out: Uint8Array[] = [encode(file)];
    sent.add(file.proto.name);
    const queue = [...file.dependencies];
    for (let dep = queue.shift(); dep; dep = queue.shift()) {
      if (sent.has(dep.proto.name)) continue;
      sent.add(dep.proto.name);
      out.push(encode(dep));
      queue.push(...dep.dependencies);
    }
    return { case: "fileDescriptorResponse", value: { fileDescriptorProto: out } };
  };
  const sortedServices = [...serviceNames].sort();

  return {
    services: sortedServices,
    files,
    answer(request, sent) {
      const r = request.messageRequest;
      switch (r.case) {
        case "listServices":
          return {
            case: "listServicesResponse",
            value: { service: sortedServices.map((name) => ({ name })) },
          };
        case "fileByFilename": {
          const file = files.get(r.value);
          return file ? withDependencies(file, sent) : notFound(`file not found: ${r.value}`);
        }
        case "fileContainingSymbol": {
          const name = r.value.replace(/^\./, "");
          const file = symbols.get(name);
          return file ? withDependencies(file, sent) : notFound(`symbol not found: ${r.value}`);
        }
        case "fileContainingExtension": {
          const type = r.value.containingType.replace(/^\./, "");
          const ext = extensions.get(type)?.get(r.value.extensionNumber);
          return ext
            ? withDependencies(ext.file, sent)
            : notFound(`extension not found: ${r.value.containingType} field ${r.value.extensionNumber}`);
        }
        case "allExtensionNumbersOfType": {
          const type = r.value.replace(/^\./, "");
          if (!messages.has(type)) return notFound(`message type not found: ${r.value}`);
          const numbers = [...(extensions.get(type)?.keys() ?? [])].sort((a, b) => a - b);
          return {
            case: "allExtensionNumbersResponse",
            value: { baseTypeName: type, extensionNumber: numbers },
          };
        }
        default:
          throw new ConnectError(
            "invalid MessageRequest: none of the known kinds is set",
            Code.InvalidArgument,
          );
      }
    },
  };
}

/**
 * Adds both reflection services to `router`, describing the services registered on it so far (call
 * it after them).
 */
export function registerReflection(router: ConnectRouter): ReflectionIndex {
  const index = createReflectionIndex(new Set(router.handlers.map((h) => h.service)));
  // One stream handler for both versions: their messages differ in type names only.
  async function* serverReflectionInfo<R extends ReflectionRequest>(requests: AsyncIterable<R>) {
    const sent = new Set<string>();
    for await (const request of requests) {
      yield {
        validHost: request.host,
        originalRequest: request,
        messageResponse: index.answer(request, sent),
      };
    }
  }
  router.service(v1.ServerReflection, { serverReflectionInfo });
  router.service(v1alpha.ServerReflection, { serverReflectionInfo });
  return index;
}
