/**
 * Internal callers can reach every service directly on its RPC port, with off-the-shelf tooling:
 * a `@grpc/grpc-js` client built from the repo's .proto files by `@grpc/proto-loader` (plain gRPC
 * over h2c), gRPC server reflection (v1 and v1alpha, as grpcurl and `buf curl` use it) and the
 * standard health check, and connect-node's gRPC-web and Connect transports. The calls authenticate
 * as an internal team does (kit rpc/auth.ts): a caller token from `npm run rpc-token`, naming the
 * tenant; calls without a valid token, or for a tenant the token does not name, are refused.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { CONTEXT_HEADERS, contextToHeaders, type RequestContext } from "@fop/kit/context";
import { bearerInterceptor, rpcKeys, signRpcToken } from "@fop/kit/rpc/auth";
import { TEST_RPC_AUTH_KEY, testCallerToken, testCredentials } from "@fop/kit/testing/rpc";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type ServiceName, type System, startSystem } from "../../support/system.ts";

const REPO = path.resolve(import.meta.dirname, "../../..");
const PROTO_DIR = path.join(REPO, "proto");
/** How a grpc-js caller loads our protos: snake_case fields become camelCase, int64 strings. */
const LOADER: protoLoader.Options = {
  includeDirs: [PROTO_DIR],
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** Each service: its proto file, its fully-qualified service name and one method to describe. */
const SERVICES: Record<ServiceName, { file: string; service: string; method: string }> = {
  catalog: {
    file: "fop/catalog/v1/catalog.proto",
    service: "fop.catalog.v1.CatalogService",
    method: "GetCategory",
  },
  audit: { file: "fop/audit/v1/audit.proto", service: "fop.audit.v1.AuditService", method: "ListAudits" },
  picking: {
    file: "fop/picking/v1/picking.proto",
    service: "fop.picking.v1.PickingService",
    method: "GetPickJob",
  },
  loadunits: {
    file: "fop/loadunits/v1/loadunits.proto",
    service: "fop.loadunits.v1.LoadUnitsService",
    method: "ListContainerTypes",
  },
  carriers: {
    file: "fop/carriers/v1/carriers.proto",
    service: "fop.carriers.v1.CarriersService",
    method: "ListCarriers",
  },
  returns: {
    file: "fop/returns/v1/returns.proto",
    service: "fop.returns.v1.ReturnsService",
    method: "ListReasons",
  },
  notifications: {
    file: "fop/notifications/v1/notifications.proto",
    service: "fop.notifications.v1.NotificationsService",
    method: "ListSubscriptions",
  },
};
const NAMES = Object.keys(SERVICES) as ServiceName[];

const TENANT = "rpc-interop";
/** The principal headers the gateway relays; a caller token's calls are recorded as its subject instead. */
const ctx: Omit<RequestContext, "traceId"> = {
  tenant: TENANT,
  principal: { userId: "u-1", username: "ada.lovelace", roles: ["ADMIN"], permissions: [] },
  client: { api: "RPC", rawInfo: "rpc-interop test" },
};

/** `npm run rpc-token -- --caller ... --tenants ...` as the README shows it, with the suite's key. */
function rpcTokenCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=source", "services/kit/src/cli/rpc-token.ts", ...args],
      { cwd: REPO, env: { ...process.env, RPC_AUTH_KEY: TEST_RPC_AUTH_KEY } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The internal team's token (minted by the CLI in beforeAll). */
let callerToken: string;

/** grpc-js metadata of an internal caller: its token, the tenant, and (ignored) principal headers. */
function contextMetadata(token = callerToken): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(contextToHeaders(ctx))) md.set(k, v);
  md.set("authorization", `Bearer ${token}`);
  return md;
}

type Unary = (
  request: object,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response: any) => void,
) => grpc.ClientUnaryCall;

/** One unary call of a grpc-js client; resolves with the response, rejects with the ServiceError. */
function call(
  client: grpc.Client,
  method: string,
  request: object,
  metadata = contextMetadata(),
): Promise<any> {
  const fn = (client as unknown as Record<string, Unary>)[method]!;
  return new Promise((resolve, reject) => {
    fn.call(client, request, metadata, { deadline: Date.now() + 10_000 }, (err, res) =>
      err ? reject(err) : resolve(res),
    );
  });
}

/** The error detail a gRPC caller finds in grpc-status-details-bin (google.rpc.Status). */
function errorDetail(err: grpc.ServiceError) {
  const bin = err.metadata.get("grpc-status-details-bin")[0] as Buffer | undefined;
  expect(bin, "grpc-status-details-bin").toBeInstanceOf(Buffer);
  const headers = new Headers({
    "grpc-status": String(err.code),
    "grpc-message": encodeURIComponent(err.details),
    "grpc-status-details-bin": bin!.toString("base64"),
  });
  return findTrailerError(headers)!.findDetails(ErrorDetailSchema)[0];
}

const target = (url: string) => new URL(url).host;
const insecure = grpc.credentials.createInsecure();

let sys: System;
let pkg: grpc.GrpcObject;
/** The category the catalog test creates over gRPC (the audit test finds its record). */
let categoryId: string;
const clients: grpc.Client[] = [];
/** A grpc-js client of `ctor` for `service`, closed after the file. */
function clientOf(ctor: grpc.ServiceClientConstructor, service: ServiceName): grpc.Client {
  const c = new ctor(target(sys.services[service].rpcUrl), insecure);
  clients.push(c);
  return c;
}
/** The grpc-js constructor of a fully-qualified service name. */
const ctorOf = (root: grpc.GrpcObject, fqn: string) =>
  fqn.split(".").reduce<any>((o, part) => o[part], root) as grpc.ServiceClientConstructor;

beforeAll(async () => {
  let minted: { code: number; stdout: string; stderr: string };
  [sys, pkg, minted] = await Promise.all([
    startSystem(),
    protoLoader
      .load(
        [
          ...Object.values(SERVICES).map((s) => s.file),
          "grpc/health/v1/health.proto",
          "grpc/reflection/v1/reflection.proto",
          "grpc/reflection/v1alpha/reflection.proto",
        ],
        LOADER,
      )
      .then((def) => grpc.loadPackageDefinition(def)),
    rpcTokenCli("--caller", "reporting-team", "--tenants", TENANT),
  ]);
  expect(minted, minted.stderr).toMatchObject({ code: 0 });
  callerToken = minted.stdout.trim();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await sys?.close();
});

describe("plain gRPC with @grpc/grpc-js (h2c, insecure credentials)", () => {
  it("catalog: CreateCategory then GetCategory", async () => {
    const catalog = clientOf(ctorOf(pkg, SERVICES.catalog.service), "catalog");
    const created = await call(catalog, "CreateCategory", {
      body: {
        fields: {
          tenantCategoryId: { stringValue: "GRPC-1" },
          nameLocalized: { structValue: { fields: { en_US: { stringValue: "Over gRPC" } } } },
          customAttributes: { structValue: { fields: { source: { stringValue: "grpc-js" } } } },
        },
      },
    });
    expect(created.category).toMatchObject({ version: "1", tenantCategoryId: "GRPC-1" });
    categoryId = created.category.id;
    const got = await call(catalog, "GetCategory", { id: created.category.id });
    expect(got.category.id).toBe(created.category.id);
    expect(JSON.parse(got.category.documentJson.toString("utf8"))).toMatchObject({
      id: created.category.id,
      version: 1,
      tenantCategoryId: "GRPC-1",
      nameLocalized: { en_US: "Over gRPC" },
      customAttributes: { source: "grpc-js" },
    });
  });

  it("picking: GetPickJob of an unknown id is NOT_FOUND, with our ErrorDetail in grpc-status-details-bin", async () => {
    const picking = clientOf(ctorOf(pkg, SERVICES.picking.service), "picking");
    const err: grpc.ServiceError = await call(picking, "GetPickJob", { id: "no-such-pick-job" }).then(
      () => expect.unreachable(),
      (e) => e,
    );
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errorDetail(err)).toMatchObject({
      code: "PICK_JOB_NOT_FOUND",
      description: 'No pick job with id "no-such-pick-job" exists.',
    });
  });

  it("audit: ListAudits finds the category's record, by the caller its token names (not the principal headers)", async () => {
    const audit = clientOf(ctorOf(pkg, SERVICES.audit.service), "audit");
    const res = await eventually(async () => {
      const r = await call(audit, "ListAudits", {
        page: { size: 10 },
        filters: { fields: { entityRef: { stringValue: categoryId } } },
      });
      // (total waits too: ListAudits counts in a statement of its own, which can miss a record
      // the page query already sees while it is being written)
      return r.audits.length > 0 && r.total === "1" ? r : undefined;
    });
    // The envelope, and the record as REST shows it.
    expect(res.audits[0].entityRef).toBe(categoryId);
    expect(JSON.parse(Buffer.from(res.audits[0].documentJson).toString("utf8"))).toMatchObject({
      entityRef: categoryId,
      entityType: "CATEGORY",
      operation: { name: "CATEGORY_CREATED" },
      actor: { id: "reporting-team", details: { username: "reporting-team" } },
      client: { api: "RPC", rawInfo: "rpc-interop test" },
    });
  });

  it("a list's filters are read with its declaration: an unknown or bad filter is INVALID_ARGUMENT naming it", async () => {
    const picking = clientOf(ctorOf(pkg, SERVICES.picking.service), "picking");
    const refused = (filters: object) =>
      call(picking, "ListPickJobs", { page: { size: 10 }, filters: { fields: filters } }).then(
        () => expect.unreachable(),
        (e: grpc.ServiceError) => e,
      );
    const unknown = await refused({ evil: { stringValue: "<script>" } });
    expect(unknown.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errorDetail(unknown)).toMatchObject({ code: "INVALID_FILTER", field: "evil" });
    const bad = await refused({ startOrderDate: { numberValue: 3 } });
    expect(bad.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errorDetail(bad)).toMatchObject({ code: "INVALID_FILTER", field: "startOrderDate" });
    const none = await call(picking, "ListPickJobs", {
      page: { size: 10 },
      filters: { fields: { status: { listValue: { values: [{ stringValue: "OPEN" }] } } } },
    });
    expect(none).toMatchObject({ pickjobs: [], total: "0" });
  });

  it("the other services answer a list call for the tenant (empty)", async () => {
    const calls: [ServiceName, object, (res: any) => void][] = [
      [
        "loadunits",
        { kind: "CONTAINER_TYPE_KIND_OPERATIVE", page: { size: 10 } },
        (r) => expect(r).toMatchObject({ containerTypes: [], total: "0" }),
      ],
      ["carriers", { page: { size: 10 } }, (r) => expect(r).toMatchObject({ carriers: [], total: "0" })],
      [
        "returns",
        { action: "REASON_ACTION_CANCELATION", page: { size: 10 } },
        (r) => expect(r).toMatchObject({ reasons: [], total: "0" }),
      ],
      ["notifications", { size: 10 }, (r) => expect(r).toMatchObject({ subscriptionsJson: [], total: "0" })],
    ];
    for (const [name, request, check] of calls) {
      const client = clientOf(ctorOf(pkg, SERVICES[name].service), name);
      check(await call(client, SERVICES[name].method, request));
    }
  });

  it("a call without the tenant header is UNAUTHENTICATED (TENANT_MISSING) when the token names several", async () => {
    const audit = clientOf(ctorOf(pkg, SERVICES.audit.service), "audit");
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${await testCallerToken("two-tenants", [TENANT, "other"])}`);
    const err: grpc.ServiceError = await call(audit, "ListAudits", {}, md).then(
      () => expect.unreachable(),
      (e) => e,
    );
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(errorDetail(err)?.code).toBe("TENANT_MISSING");
  });

  it("grpc.health.v1.Health/Check answers SERVING on every service, without context headers", async () => {
    for (const name of NAMES) {
      const health = clientOf(ctorOf(pkg, "grpc.health.v1.Health"), name);
      expect(await call(health, "Check", { service: "" }, new grpc.Metadata()), name).toEqual({
        status: "SERVING",
      });
    }
  });
});

/** One ServerReflectionInfo stream: writes `requests`, half-closes, collects the answers. */
function reflect(client: grpc.Client, requests: object[]): Promise<any[]> {
  const stream = (client as any).ServerReflectionInfo() as grpc.ClientDuplexStream<object, any>;
  const answers: any[] = [];
  return new Promise((resolve, reject) => {
    stream.on("data", (a) => answers.push(a));
    stream.on("error", reject);
    stream.on("end", () => resolve(answers));
    for (const r of requests) stream.write(r);
    stream.end();
  });
}

const decode = (answer: any): FileDescriptorProto[] => {
  expect(answer.messageResponse, JSON.stringify(answer.errorResponse)).toBe("fileDescriptorResponse");
  return answer.fileDescriptorResponse.fileDescriptorProto.map((b: Buffer) =>
    fromBinary(FileDescriptorProtoSchema, b),
  );
};

describe("gRPC server reflection through grpc-js", () => {
  it("v1 lists each service, health and reflection, and describes a method with its dependencies", async () => {
    for (const name of NAMES) {
      const { file, service, method } = SERVICES[name];
      const reflection = clientOf(ctorOf(pkg, "grpc.reflection.v1.ServerReflection"), name);
      const [list, described, missing] = await reflect(reflection, [
        { host: "", listServices: "*" },
        { fileContainingSymbol: `${service}.${method}` },
        { fileContainingSymbol: `${service}.NoSuchMethod` },
      ]);
      expect(
        list.listServicesResponse.service.map((s: { name: string }) => s.name),
        name,
      ).toEqual([
        service,
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
      ]);

      const fds = decode(described);
      expect(fds[0]!.name, name).toBe(file);
      const m = fds[0]!.service
        .find((s) => `${fds[0]!.package}.${s.name}` === service)!
        .method.find((x) => x.name === method);
      expect(m, name).toMatchObject({
        inputType: `.${service.replace(/\.\w+$/, "")}.${method}Request`,
        outputType: `.${service.replace(/\.\w+$/, "")}.${method}Response`,
      });
      const input = fds[0]!.messageType.find((t) => `.${fds[0]!.package}.${t.name}` === m!.inputType);
      expect(input?.field.length, name).toBeGreaterThan(0);
      // The file and all of its transitive imports: every service uses fop.common.v1, which uses Struct.
      const files = fds.map((f) => f.name);
      expect(files, name).toEqual(
        expect.arrayContaining(["fop/common/v1/common.proto", "google/protobuf/struct.proto"]),
      );
      for (const f of fds)
        for (const dep of f.dependency) expect(files, `${name}: ${f.name} -> ${dep}`).toContain(dep);
      expect(new Set(files).size, name).toBe(files.length);

      if (name === "notifications") {
        // A server-streaming method is described as one.
        expect(
          fds[0]!.service[0]!.method.find((x) => x.name === "StreamNotifications"),
          name,
        ).toMatchObject({ serverStreaming: true, clientStreaming: false });
      }
      expect(missing, name).toMatchObject({
        messageResponse: "errorResponse",
        errorResponse: { errorCode: grpc.status.NOT_FOUND },
      });
    }
  });

  it("v1 answers files by name, extensions (NOT_FOUND / none) and refuses a file the process does not serve", async () => {
    const reflection = clientOf(ctorOf(pkg, "grpc.reflection.v1.ServerReflection"), "audit");
    const [byName, other, ext, extNumbers] = await reflect(reflection, [
      { fileByFilename: "fop/audit/v1/audit.proto" },
      { fileByFilename: "fop/catalog/v1/catalog.proto" },
      { fileContainingExtension: { containingType: "fop.audit.v1.Audit", extensionNumber: 100 } },
      { allExtensionNumbersOfType: "fop.audit.v1.Audit" },
    ]);
    expect(decode(byName).map((f) => f.name)).toEqual([
      "fop/audit/v1/audit.proto",
      "fop/common/v1/common.proto",
      "google/protobuf/struct.proto",
    ]);
    expect(other.errorResponse.errorCode).toBe(grpc.status.NOT_FOUND);
    expect(ext.errorResponse.errorCode).toBe(grpc.status.NOT_FOUND);
    expect(extNumbers.allExtensionNumbersResponse).toEqual({
      baseTypeName: "fop.audit.v1.Audit",
      extensionNumber: [],
    });
  });

  it("v1alpha answers too, and what reflection returns is enough to build a grpc-js client and call", async () => {
    const reflection = clientOf(ctorOf(pkg, "grpc.reflection.v1alpha.ServerReflection"), "catalog");
    const [list, described] = await reflect(reflection, [
      { listServices: "" },
      { fileContainingSymbol: "fop.catalog.v1.CatalogService" },
    ]);
    expect(list.listServicesResponse.service.map((s: { name: string }) => s.name)).toContain(
      "fop.catalog.v1.CatalogService",
    );
    // As a reflection client does: the FileDescriptorProtos -> a FileDescriptorSet -> proto-loader.
    // protobufjs 7.6 builds such types with the descriptors' snake_case names and a map as its
    // repeated key/value entries (the same bytes on the wire).
    const set = toBinary(
      FileDescriptorSetSchema,
      create(FileDescriptorSetSchema, { file: decode(described) }),
    );
    const reflected = grpc.loadPackageDefinition(
      protoLoader.loadFileDescriptorSetFromBuffer(Buffer.from(set), LOADER),
    );
    const catalog = clientOf(ctorOf(reflected, "fop.catalog.v1.CatalogService"), "catalog");
    const created = await call(catalog, "CreateCategory", {
      // (a descriptor set read as it is: maps as arrays of entries, fields in snake_case)
      body: {
        fields: [
          {
            key: "nameLocalized",
            value: { struct_value: { fields: [{ key: "de_DE", value: { string_value: "Reflektiert" } }] } },
          },
        ],
      },
    });
    const got = await call(catalog, "GetCategory", { id: created.category.id });
    expect(JSON.parse(got.category.document_json.toString("utf8")).nameLocalized).toEqual({
      de_DE: "Reflektiert",
    });
  });
});

describe("gRPC-web and Connect (connect-node over HTTP/2: the RPC port is h2c only)", () => {
  it("answers the same calls over gRPC-web and over the Connect protocol (JSON)", async () => {
    const url = sys.services.catalog.rpcUrl;
    // As a platform component calls (the gateway): its own token, relaying the end user's context.
    const headers = contextToHeaders(ctx);
    const interceptors = [bearerInterceptor(testCredentials)];
    const grpcWeb = createClient(
      CatalogService,
      createGrpcWebTransport({ baseUrl: url, httpVersion: "2", interceptors }),
    );
    const connect = createClient(
      CatalogService,
      createConnectTransport({ baseUrl: url, httpVersion: "2", interceptors }),
    );
    const created = await grpcWeb.createCategory(
      { body: { nameLocalized: { en_US: "Over gRPC-web" } } },
      { headers },
    );
    const got = await connect.getCategory({ id: created.category!.id }, { headers });
    expect(got.category?.version).toBe(1n);
    expect(JSON.parse(new TextDecoder().decode(got.category!.documentJson)).nameLocalized).toEqual({
      en_US: "Over gRPC-web",
    });
    const missing = await connect.getCategory({ id: "no-such-category" }, { headers }).catch((e) => e);
    expect(ConnectError.from(missing).code).toBe(Code.NotFound);
    expect(ConnectError.from(missing).findDetails(ErrorDetailSchema)[0]?.code).toBe("CATEGORY_NOT_FOUND");

    for (const name of NAMES) {
      const baseUrl = sys.services[name].rpcUrl;
      for (const transport of [
        createGrpcWebTransport({ baseUrl, httpVersion: "2" }),
        createConnectTransport({ baseUrl, httpVersion: "2" }),
      ]) {
        expect((await createClient(Health, transport).check({})).status, name).toBe(
          HealthCheckResponse_ServingStatus.SERVING,
        );
      }
    }
  });
});

describe("authentication of direct calls", () => {
  /** The ServiceError of a grpc-js call expected to fail. */
  const refused = (client: grpc.Client, method: string, request: object, md: grpc.Metadata) =>
    call(client, method, request, md).then(
      () => expect.unreachable(`${method} was not refused`),
      (e: grpc.ServiceError) => e,
    );
  const withToken = (token: string | undefined, tenant = TENANT) => {
    const md = new grpc.Metadata();
    md.set(CONTEXT_HEADERS.tenant, tenant);
    if (token !== undefined) md.set("authorization", `Bearer ${token}`);
    return md;
  };
  const categoryIds = async (client: grpc.Client): Promise<string[]> =>
    (await call(client, "ListCategories", { page: { size: 100 } })).categories.map(
      (c: { id: string }) => c.id,
    );

  it("every service refuses a call without a token (UNAUTHENTICATED, RPC_TOKEN_MISSING); a write without one changes nothing", async () => {
    for (const name of NAMES) {
      const client = clientOf(ctorOf(pkg, SERVICES[name].service), name);
      const err = await refused(client, SERVICES[name].method, {}, withToken(undefined));
      expect(err.code, name).toBe(grpc.status.UNAUTHENTICATED);
      expect(errorDetail(err), name).toMatchObject({ code: "RPC_TOKEN_MISSING" });
    }
    const catalog = clientOf(ctorOf(pkg, SERVICES.catalog.service), "catalog");
    const before = await categoryIds(catalog);
    const err = await refused(
      catalog,
      "CreateCategory",
      { body: { fields: { tenantCategoryId: { stringValue: "NO-TOKEN" } } } },
      withToken(undefined),
    );
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await categoryIds(catalog)).toEqual(before);
  });

  it("refuses tokens that are not the platform's: another key, expired, the gateway's user token, garbage", async () => {
    const catalog = clientOf(ctorOf(pkg, SERVICES.catalog.service), "catalog");
    const otherKey = rpcKeys({ RPC_AUTH_KEY: "another-cluster-key-0123456789abcdef0123" });
    const expired = await signRpcToken(rpcKeys({ RPC_AUTH_KEY: TEST_RPC_AUTH_KEY }), {
      subject: "reporting-team",
      kind: "caller",
      tenants: [TENANT],
      expiresInS: -120,
    });
    const cases: [string, string, string][] = [
      [
        "another cluster's key",
        await signRpcToken(otherKey, { subject: "x", kind: "caller", tenants: [TENANT], expiresInS: 600 }),
        "RPC_TOKEN_INVALID",
      ],
      ["expired", expired, "RPC_TOKEN_EXPIRED"],
      // The public API's bearer token is for the gateway, not the services.
      ["the gateway's user token", await sys.token(TENANT, { roles: ["ADMIN"] }), "RPC_TOKEN_INVALID"],
      ["garbage", "abc.def.ghi", "RPC_TOKEN_INVALID"],
    ];
    for (const [what, token, code] of cases) {
      const err = await refused(catalog, "ListCategories", {}, withToken(token));
      expect(err.code, what).toBe(grpc.status.UNAUTHENTICATED);
      expect(errorDetail(err)?.code, what).toBe(code);
    }
  });

  it("a caller token acts only for the tenants it names: another tenant is PERMISSION_DENIED, its data unseen", async () => {
    const catalog = clientOf(ctorOf(pkg, SERVICES.catalog.service), "catalog");
    expect((await categoryIds(catalog)).length).toBeGreaterThan(0); // the categories created above
    const elsewhere = await testCallerToken("other-team", ["someone-else"]);
    const err = await refused(catalog, "ListCategories", { page: { size: 100 } }, withToken(elsewhere));
    expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(errorDetail(err)).toMatchObject({ code: "TENANT_NOT_GRANTED" });
    // For its own tenant (named in the token, so the header may be left out) it sees that tenant only.
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${elsewhere}`);
    expect((await call(catalog, "ListCategories", { page: { size: 100 } }, md)).categories).toEqual([]);
  });

  it("the gRPC-web and Connect protocols are refused without a token too", async () => {
    const baseUrl = sys.services.catalog.rpcUrl;
    for (const [name, transport] of [
      ["gRPC-web", createGrpcWebTransport({ baseUrl, httpVersion: "2" })],
      ["Connect", createConnectTransport({ baseUrl, httpVersion: "2" })],
    ] as const) {
      const err = ConnectError.from(
        await createClient(CatalogService, transport)
          .listCategories({}, { headers: { [CONTEXT_HEADERS.tenant]: TENANT } })
          .catch((e) => e),
      );
      expect(err.code, name).toBe(Code.Unauthenticated);
      expect(err.findDetails(ErrorDetailSchema)[0]?.code, name).toBe("RPC_TOKEN_MISSING");
    }
  });

  it("npm run rpc-token refuses what it cannot mint, with the usage", async () => {
    const missing = await rpcTokenCli("--caller", "x");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("usage: npm run rpc-token");
    const bad = await rpcTokenCli("--caller", "x", "--tenants", "not a tenant");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("not a tenant id");
  });
});

describe("from a shell: the README's `buf curl` lines (buf from npm, reflection instead of .proto files)", () => {
  const bufCurl = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        path.join(REPO, "node_modules/.bin/buf"),
        ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args],
        { cwd: REPO, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });

  it("lists the methods without a token, and calls one with a caller token (refused without)", async () => {
    const url = sys.services.catalog.rpcUrl;
    const list = await bufCurl("--list-methods", url);
    expect(list, list.stderr).toMatchObject({ code: 0 });
    expect(list.stdout.split("\n")).toEqual(
      expect.arrayContaining(["fop.catalog.v1.CatalogService/GetCategory", "grpc.health.v1.Health/Check"]),
    );
    const get = `${url}/fop.catalog.v1.CatalogService/GetCategory`;
    const data = JSON.stringify({ id: categoryId });
    const got = await bufCurl("-H", `authorization: Bearer ${callerToken}`, "-d", data, get);
    expect(got, got.stderr).toMatchObject({ code: 0 });
    const category = JSON.parse(got.stdout).category;
    expect(JSON.parse(Buffer.from(category.documentJson, "base64").toString("utf8"))).toMatchObject({
      id: categoryId,
      tenantCategoryId: "GRPC-1",
    });
    const anonymous = await bufCurl("-d", data, get);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/unauthenticated/i);
  });
});
