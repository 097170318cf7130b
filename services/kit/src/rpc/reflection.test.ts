import { create, createFileRegistry, type DescService, fromBinary } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { Health } from "@fop/proto/grpc/health/v1/health_pb.js";
import * as v1 from "@fop/proto/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "@fop/proto/grpc/reflection/v1alpha/reflection_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRuntime } from "../testing/rpc.ts";
import { createReflectionIndex, type ReflectionAnswer } from "./reflection.ts";
import { buildRpcServer, type RpcServer, rpcPort } from "./server.ts";

type Req = v1.ServerReflectionRequest["messageRequest"];
const req = (messageRequest: Req) => create(v1.ServerReflectionRequestSchema, { messageRequest });

/** The FileDescriptorProtos of a file answer, decoded. */
function files(answer: ReflectionAnswer): FileDescriptorProto[] {
  expect(answer.case).toBe("fileDescriptorResponse");
  if (answer.case !== "fileDescriptorResponse") return [];
  return answer.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b));
}
const names = (answer: ReflectionAnswer) => files(answer).map((f) => f.name);
const notFound = (answer: ReflectionAnswer) =>
  answer.case === "errorResponse" && answer.value.errorCode === Code.NotFound;

const CATALOG_FILES = [
  "fop/catalog/v1/catalog.proto",
  "fop/common/v1/common.proto",
  "google/protobuf/struct.proto",
];

describe("reflection index", () => {
  const index = createReflectionIndex([CatalogService, Health]);

  it("lists the process's services, health and both reflection services", () => {
    expect(index.answer(req({ case: "listServices", value: "*" }), new Set())).toEqual({
      case: "listServicesResponse",
      value: {
        service: [
          { name: "fop.catalog.v1.CatalogService" },
          { name: "grpc.health.v1.Health" },
          { name: "grpc.reflection.v1.ServerReflection" },
          { name: "grpc.reflection.v1alpha.ServerReflection" },
        ],
      },
    });
    expect([...index.files.keys()].sort()).toEqual(
      [
        ...CATALOG_FILES,
        "grpc/health/v1/health.proto",
        "grpc/reflection/v1/reflection.proto",
        "grpc/reflection/v1alpha/reflection.proto",
      ].sort(),
    );
  });

  it("answers a method with its file and every transitive import, a self-contained set", () => {
    const answer = index.answer(
      req({ case: "fileContainingSymbol", value: "fop.catalog.v1.CatalogService.GetCategory" }),
      new Set(),
    );
    const fds = files(answer);
    expect(fds[0]!.name).toBe("fop/catalog/v1/catalog.proto");
    expect(fds.map((f) => f.name).sort()).toEqual(CATALOG_FILES);
    const catalog = fds[0]!;
    expect(catalog.package).toBe("fop.catalog.v1");
    expect(catalog.syntax).toBe("proto3");
    expect(catalog.dependency).toEqual(["fop/common/v1/common.proto", "google/protobuf/struct.proto"]);
    const method = catalog.service[0]!.method.find((m) => m.name === "GetCategory");
    expect(method).toMatchObject({
      inputType: ".fop.catalog.v1.GetCategoryRequest",
      outputType: ".fop.catalog.v1.GetCategoryResponse",
    });
    // What a client does with the answer: build a registry from it alone; every reference resolves.
    const registry = createFileRegistry(catalog, (name) => fds.find((f) => f.name === name));
    const category = registry.getMessage("fop.catalog.v1.Category")!;
    const create = registry.getMessage("fop.catalog.v1.CreateCategoryRequest")!;
    expect(create.field.body!.message!.typeName).toBe("google.protobuf.Struct");
    expect(category.field.tenantCategoryId!.jsonName).toBe("tenantCategoryId");
    expect(registry.getService("fop.catalog.v1.CatalogService")!.method.getCategory!.input.typeName).toBe(
      "fop.catalog.v1.GetCategoryRequest",
    );
  });

  it("finds every kind of declared name", () => {
    const symbols: [string, string][] = [
      ["fop.catalog.v1.CatalogService", "fop/catalog/v1/catalog.proto"],
      ["fop.catalog.v1.Category", "fop/catalog/v1/catalog.proto"],

      ["fop.catalog.v1.Category.version", "fop/catalog/v1/catalog.proto"],
      ["fop.catalog.v1.Category._tenant_category_id", "fop/catalog/v1/catalog.proto"],
      ["fop.catalog.v1.FacilityStatus", "fop/catalog/v1/catalog.proto"],
      ["fop.catalog.v1.FACILITY_STATUS_OFFLINE", "fop/catalog/v1/catalog.proto"],
      [".fop.catalog.v1.Facility", "fop/catalog/v1/catalog.proto"],
      ["fop.common.v1.ErrorDetail", "fop/common/v1/common.proto"],
      ["google.protobuf.Struct", "google/protobuf/struct.proto"],
      ["google.protobuf.NULL_VALUE", "google/protobuf/struct.proto"],
      ["google.protobuf.Struct.FieldsEntry", "google/protobuf/struct.proto"],
      ["grpc.health.v1.Health.Check", "grpc/health/v1/health.proto"],
      ["grpc.health.v1.HealthCheckResponse.SERVING", "grpc/health/v1/health.proto"],
      ["grpc.reflection.v1alpha.ServerReflection", "grpc/reflection/v1alpha/reflection.proto"],
    ];
    for (const [symbol, file] of symbols) {
      const answer = index.answer(req({ case: "fileContainingSymbol", value: symbol }), new Set());
      expect(answer.case === "fileDescriptorResponse" && names(answer)[0], symbol).toBe(file);
    }
    for (const symbol of [
      "fop.catalog.v1.Nope",
      "fop.catalog.v1.CatalogService.Nope",
      "fop.catalog.v1",
      // Not served by this process.
      "fop.picking.v1.PickingService",
      "",
    ]) {
      expect(
        notFound(index.answer(req({ case: "fileContainingSymbol", value: symbol }), new Set())),
        symbol,
      ).toBe(true);
    }
  });

  it("answers files by name; imports already sent on the stream are left out, the file itself never", () => {
    const sent = new Set<string>();
    expect(
      names(index.answer(req({ case: "fileByFilename", value: "fop/common/v1/common.proto" }), sent)),
    ).toEqual(["fop/common/v1/common.proto", "google/protobuf/struct.proto"]);
    expect(
      names(
        index.answer(req({ case: "fileContainingSymbol", value: "fop.catalog.v1.Category" }), sent),
      ).sort(),
    ).toEqual(["fop/catalog/v1/catalog.proto"]);
    expect(
      names(index.answer(req({ case: "fileByFilename", value: "google/protobuf/struct.proto" }), sent)),
    ).toEqual(["google/protobuf/struct.proto"]);
    for (const file of ["fop/picking/v1/picking.proto", "nope.proto", "fop/catalog/v1"]) {
      expect(notFound(index.answer(req({ case: "fileByFilename", value: file }), sent)), file).toBe(true);
    }
  });

  it("answers extension requests: NOT_FOUND for unknown types and extensions, none for known types", () => {
    expect(
      notFound(
        index.answer(
          req({
            case: "fileContainingExtension",
            value: create(v1.ExtensionRequestSchema, {
              containingType: "fop.catalog.v1.Category",
              extensionNumber: 100,
            }),
          }),
          new Set(),
        ),
      ),
    ).toBe(true);
    expect(
      index.answer(req({ case: "allExtensionNumbersOfType", value: "fop.catalog.v1.Category" }), new Set()),
    ).toEqual({
      case: "allExtensionNumbersResponse",
      value: { baseTypeName: "fop.catalog.v1.Category", extensionNumber: [] },
    });
    for (const type of [
      "fop.catalog.v1.Nope",
      "fop.catalog.v1.CatalogService",
      "fop.catalog.v1.FacilityType",
    ]) {
      expect(
        notFound(index.answer(req({ case: "allExtensionNumbersOfType", value: type }), new Set())),
        type,
      ).toBe(true);
    }
  });

  it("answers extension requests of a file that declares extensions", () => {
    const service = extensionService();
    const ext = createReflectionIndex([service]);
    expect(ext.answer(req({ case: "allExtensionNumbersOfType", value: "test.ext.Base" }), new Set())).toEqual(
      {
        case: "allExtensionNumbersResponse",
        value: { baseTypeName: "test.ext.Base", extensionNumber: [101, 150] },
      },
    );
    const byExtension = ext.answer(
      req({
        case: "fileContainingExtension",
        value: create(v1.ExtensionRequestSchema, { containingType: "test.ext.Base", extensionNumber: 150 }),
      }),
      new Set(),
    );
    expect(names(byExtension)).toEqual(["test/ext.proto"]);
    expect(
      names(ext.answer(req({ case: "fileContainingSymbol", value: "test.ext.note" }), new Set())),
    ).toEqual(["test/ext.proto"]);
    expect(
      notFound(
        ext.answer(
          req({
            case: "fileContainingExtension",
            value: create(v1.ExtensionRequestSchema, {
              containingType: "test.ext.Base",
              extensionNumber: 102,
            }),
          }),
          new Set(),
        ),
      ),
    ).toBe(true);
  });

  it("refuses a request of no known kind", () => {
    expect(() => index.answer(req({ case: undefined }), new Set())).toThrow(
      expect.objectContaining({ code: Code.InvalidArgument }),
    );
  });
});

/** A proto2 file with a message, two extensions of it and a service (none of ours declares any). */
function extensionService(): DescService {
  const opt = FieldDescriptorProto_Label.OPTIONAL;
  const proto = create(FileDescriptorProtoSchema, {
    name: "test/ext.proto",
    package: "test.ext",
    syntax: "proto2",
    messageType: [{ name: "Base", extensionRange: [{ start: 100, end: 200 }] }],
    extension: [
      {
        name: "note",
        number: 150,
        label: opt,
        type: FieldDescriptorProto_Type.STRING,
        extendee: ".test.ext.Base",
      },
      {
        name: "count",
        number: 101,
        label: opt,
        type: FieldDescriptorProto_Type.INT32,
        extendee: ".test.ext.Base",
      },
    ],
    service: [
      {
        name: "ExtService",
        method: [{ name: "Get", inputType: ".test.ext.Base", outputType: ".test.ext.Base" }],
      },
    ],
  });
  return createFileRegistry(proto, () => undefined).getService("test.ext.ExtService")!;
}

describe("reflection on the kit's RPC server", () => {
  const rt = testRuntime("reflection-test");
  let server: RpcServer;
  let url: string;
  beforeAll(async () => {
    server = await buildRpcServer(rt, (router) => router.service(CatalogService, {}));
    await server.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${rpcPort(server)}`;
  });
  afterAll(() => server?.close());

  async function* requests<T>(...items: T[]) {
    yield* items;
  }

  it("answers v1 over gRPC and Connect (bidi streams, through connect-node's handler), without tenant headers", async () => {
    const transports: [string, Transport][] = [
      ["gRPC", createGrpcTransport({ baseUrl: url })],
      ["Connect", createConnectTransport({ baseUrl: url, httpVersion: "2", useBinaryFormat: true })],
    ];
    for (const [name, transport] of transports) {
      const client = createClient(v1.ServerReflection, transport);
      const answers: v1.ServerReflectionResponse[] = [];
      for await (const a of client.serverReflectionInfo(
        requests(
          create(v1.ServerReflectionRequestSchema, {
            host: "h",
            messageRequest: { case: "listServices", value: "" },
          }),
          create(v1.ServerReflectionRequestSchema, {
            messageRequest: { case: "fileContainingSymbol", value: "fop.catalog.v1.CatalogService" },
          }),
          create(v1.ServerReflectionRequestSchema, {
            messageRequest: { case: "fileContainingSymbol", value: "fop.catalog.v1.Nope" },
          }),
          create(v1.ServerReflectionRequestSchema, {
            messageRequest: { case: "fileByFilename", value: "fop/common/v1/common.proto" },
          }),
        ),
      )) {
        answers.push(a);
      }
      expect(
        answers.map((a) => a.messageResponse.case),
        name,
      ).toEqual([
        "listServicesResponse",
        "fileDescriptorResponse",
        "errorResponse",
        "fileDescriptorResponse",
      ]);
      expect(answers[0]!.validHost, name).toBe("h");
      expect(answers[0]!.originalRequest?.messageRequest, name).toEqual({ case: "listServices", value: "" });
      const list = answers[0]!.messageResponse.value as v1.ListServiceResponse;
      expect(
        list.service.map((s) => s.name),
        name,
      ).toEqual([
        "fop.catalog.v1.CatalogService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
      ]);
      expect(
        (answers[1]!.messageResponse.value as v1.FileDescriptorResponse).fileDescriptorProto,
        name,
      ).toHaveLength(CATALOG_FILES.length);
      expect(answers[2]!.messageResponse.value, name).toMatchObject({ errorCode: Code.NotFound });
      // common.proto and struct.proto went out with the catalog's file: only the file itself again.
      expect(
        (answers[3]!.messageResponse.value as v1.FileDescriptorResponse).fileDescriptorProto,
        name,
      ).toHaveLength(1);
    }
  });

  it("answers v1alpha", async () => {
    const client = createClient(v1alpha.ServerReflection, createGrpcTransport({ baseUrl: url }));
    const answers: v1alpha.ServerReflectionResponse[] = [];
    for await (const a of client.serverReflectionInfo(
      requests(
        create(v1alpha.ServerReflectionRequestSchema, {
          messageRequest: { case: "fileContainingSymbol", value: "grpc.health.v1.Health" },
        }),
      ),
    )) {
      answers.push(a);
    }
    expect(answers).toHaveLength(1);
    const fds = (answers[0]!.messageResponse.value as v1alpha.FileDescriptorResponse).fileDescriptorProto.map(
      (b) => fromBinary(FileDescriptorProtoSchema, b),
    );
    expect(fds.map((f) => f.name)).toEqual(["grpc/health/v1/health.proto"]);
    expect(answers[0]!.originalRequest?.$typeName).toBe("grpc.reflection.v1alpha.ServerReflectionRequest");
  });

  it("ends the stream with INVALID_ARGUMENT on a request of no known kind", async () => {
    const client = createClient(v1.ServerReflection, createGrpcTransport({ baseUrl: url }));
    const run = async () => {
      for await (const _ of client.serverReflectionInfo(
        requests(create(v1.ServerReflectionRequestSchema, {})),
      )) {
        // nothing is answered
      }
    };
    await expect(run()).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.InvalidArgument);
  });
});
