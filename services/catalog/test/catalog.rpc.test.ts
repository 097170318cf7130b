/** The catalog over a real Connect client (Connect and gRPC protocols), real Postgres. */
import { create } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { newId } from "@fop/kit/ids";
import { bearerInterceptor } from "@fop/kit/rpc/auth";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { countingDeps, expectTooManyIds, rpcContext, testCredentials } from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import {
  CatalogService,
  CreateFacilityRequestSchema,
  FacilityStatus,
} from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { catalogService } from "../src/service.ts";
import type { CatalogDeps } from "../src/usecases/deps.ts";
import { batchGetFacilities } from "../src/usecases/facilities.ts";

let db: TestDatabase;
let svc: RunningService<CatalogDeps>;
const ctx = rpcContext;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [catalogService]);
  svc = await startTestService(catalogService, {
    DATABASE_URL: db.serviceUrl("catalog"),
  });
});
afterAll(async () => {
  await svc?.close();
  await db?.drop();
});

describe("CatalogService over Connect", () => {
  it("creates and reads a category, scoped to the calling tenant", async () => {
    const client = createRpcClient(CatalogService, svc.rpcUrl, testCredentials);
    const { category } = await client.createCategory(
      { body: { nameLocalized: { en_US: "Tea" }, tenantCategoryId: "TEA" } },
      callOptions(ctx("t1")),
    );
    // Answers carry id, version and the REST read model as JSON bytes (catalog.proto).
    const doc = (c: { documentJson: Uint8Array } | undefined) =>
      JSON.parse(Buffer.from(c!.documentJson).toString("utf8"));
    expect(category).toMatchObject({ version: 1n, tenantCategoryId: "TEA" });
    expect(doc(category)).toMatchObject({ id: category!.id, version: 1, tenantCategoryId: "TEA" });
    const read = (await client.getCategory({ id: category!.id }, callOptions(ctx("t1")))).category;
    expect(doc(read)).toEqual(doc(category));
    expect(doc(read).nameLocalized).toEqual({ en_US: "Tea" });
    const err = await client.getCategory({ id: category!.id }, callOptions(ctx("t2"))).catch((e) => e);
    expect(ConnectError.from(err).code).toBe(Code.NotFound);
    expect(ConnectError.from(err).findDetails(ErrorDetailSchema)[0]?.code).toBe("CATEGORY_NOT_FOUND");
  });

  it("rejects calls without a tenant", async () => {
    const client = createRpcClient(CatalogService, svc.rpcUrl, testCredentials);
    const err = await client.listCategories({}).catch((e) => e);
    expect(ConnectError.from(err).code).toBe(Code.Unauthenticated);
  });

  it("speaks the gRPC protocol too, including the standard health check", async () => {
    const transport = createGrpcTransport({
      baseUrl: svc.rpcUrl,
      interceptors: [bearerInterceptor(testCredentials)],
    });
    const health = createClient(Health, transport);
    expect((await health.check({})).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const grpc = createClient(CatalogService, transport);
    const { categories } = await grpc.listCategories({ page: { size: 10 } }, callOptions(ctx("t1")));
    expect(
      categories.map((c) => JSON.parse(Buffer.from(c.documentJson).toString()).tenantCategoryId),
    ).toEqual(["TEA"]);
  });

  it("answers health and metrics on the admin port", async () => {
    expect((await fetch(`${svc.adminUrl}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${svc.adminUrl}/metrics`)).text()).toMatch(/rpc_server_duration_seconds/);
  });
});

const document = (f: { documentJson: Uint8Array }) =>
  JSON.parse(Buffer.from(f.documentJson).toString("utf8")) as Record<string, unknown>;

describe("Facility RPCs: the envelope + document_json out, the REST body in", () => {
  const client = () => createRpcClient(CatalogService, svc.rpcUrl, testCredentials);
  const address = {
    companyName: "ACME",
    street: "Hafenstr.",
    houseNumber: "1",
    postalCode: "20457",
    city: "Hamburg",
    country: "DE",
  };

  it("creates from a FacilityForCreation body and answers the typed envelope with the REST document", async () => {
    const { facility } = await client().createFacility(
      {
        body: {
          name: "Hafen",
          tenantFacilityId: "F-1",
          address: { ...address, unknownKey: "dropped" },
          pickingMethods: ["SINGLE_ORDER"],
        },
      },
      callOptions(ctx("fe1")),
    );
    expect(facility).toMatchObject({ version: 1n, tenantFacilityId: "F-1", status: FacilityStatus.ONLINE });
    expect(facility!.address).toMatchObject({ city: "Hamburg", country: "DE" });
    const doc = document(facility!);
    expect(doc).toMatchObject({
      id: facility!.id,
      version: 1,
      name: "Hafen",
      type: "MANAGED_FACILITY",
      status: "ONLINE",
      locationType: "STORE",
      tenantFacilityId: "F-1",
      pickingMethods: ["SINGLE_ORDER"],
    });
    expect(doc.address).toMatchObject(address);
    expect(doc.address).not.toHaveProperty("unknownKey");
    expect(Date.parse(doc.created as string)).toBeGreaterThan(0);
  });

  it("modifies from a PATCH body (a named null clears) and replaces from a PUT body, both on the version", async () => {
    // A ManagedFacilityForReplacement names every required field.
    const replacement = {
      type: "MANAGED_FACILITY",
      status: "ONLINE",
      locationType: "STORE",
      address,
      fulfillmentProcessBuffer: 0,
      capacityEnabled: false,
    };
    const created = (
      await client().createFacility(
        { body: { name: "P", address, tenantFacilityId: "F-2" } },
        callOptions(ctx("fe2")),
      )
    ).facility!;
    const modified = (
      await client().modifyFacility(
        {
          id: created.id,
          body: {
            type: "MANAGED_FACILITY",
            version: 1,
            name: "P2",
            tenantFacilityId: null,
            tags: [{ id: "t", value: "v" }],
          },
        },
        callOptions(ctx("fe2")),
      )
    ).facility!;
    expect(modified.tenantFacilityId).toBeUndefined();
    expect(document(modified)).toMatchObject({ version: 2, name: "P2", tags: [{ id: "t", value: "v" }] });
    expect(document(modified)).not.toHaveProperty("tenantFacilityId");
    const replaced = (
      await client().replaceFacility(
        { id: created.id, body: { ...replacement, version: 2, name: "P3" } },
        callOptions(ctx("fe2")),
      )
    ).facility!;
    expect(document(replaced)).toMatchObject({ version: 3, name: "P3" });
    expect(document(replaced)).not.toHaveProperty("tags");
    await expect(
      client().replaceFacility(
        { id: created.id, body: { ...replacement, version: 2, name: "P4" } },
        callOptions(ctx("fe2")),
      ),
    ).rejects.toMatchObject({ code: Code.Aborted });
  });

  it("refuses a binary caller still sending the removed typed fields (REMOVED_FIELD), storing nothing", async () => {
    const grpc = createClient(
      CatalogService,
      createGrpcTransport({ baseUrl: svc.rpcUrl, interceptors: [bearerInterceptor(testCredentials)] }),
    );
    // CreateFacilityRequest as the old contract's encoder writes it: field 1, the typed Facility
    // (its name, field 6). An unknown field's data is its raw value: here length-prefixed bytes.
    const facility = new BinaryWriter().tag(6, WireType.LengthDelimited).string("Old").finish();
    const old = create(CreateFacilityRequestSchema, {});
    old.$unknown = [
      { no: 1, wireType: WireType.LengthDelimited, data: new BinaryWriter().bytes(facility).finish() },
    ];
    const err = await grpc
      .createFacility(old, callOptions(ctx("fe4")))
      .catch((e: unknown) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).findDetails(ErrorDetailSchema)[0]?.code).toBe("REMOVED_FIELD");
    expect(
      (await client().listFacilities({ page: { size: 10 } }, callOptions(ctx("fe4")))).facilities,
    ).toEqual([]);
  });

  it("refuses a location type, address or custom attributes of the wrong kind, naming the field", async () => {
    for (const [body, field] of [
      [{ name: "X", address, locationType: "CASTLE" }, "/locationType"],
      [{ name: "X", address: "Hamburg" }, "/address"],
      [{ name: "X", address: { ...address, street: 7 } }, "/address/street"],
      [{ name: "X", address, customAttributes: "nope" }, "/customAttributes"],
    ] as const) {
      const err = await client()
        .createFacility({ body }, callOptions(ctx("fe3")))
        .catch((e: unknown) => ConnectError.from(e));
      expect(err).toBeInstanceOf(ConnectError);
      expect((err as ConnectError).code).toBe(Code.InvalidArgument);
      expect((err as ConnectError).findDetails(ErrorDetailSchema)[0]?.field).toBe(field);
    }
    const err = await client()
      .modifyFacility({ id: newId(), body: { version: 1, nope: true } }, callOptions(ctx("fe3")))
      .catch((e: unknown) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    // A PATCH body is one of three forms: as at REST, the refusal names what the first form misses.
    expect((err as ConnectError).findDetails(ErrorDetailSchema)[0]).toMatchObject({
      code: "VALIDATION_FAILED",
      field: "/actions",
    });
  });
});

describe("BatchGetFacilities", () => {
  const client = () => createRpcClient(CatalogService, svc.rpcUrl, testCredentials);
  const supplier = async (tenant: string, name: string) =>
    (await client().createFacility({ body: { name, type: "SUPPLIER" } }, callOptions(ctx(tenant)))).facility!
      .id;
  const batch = (tenant: string, ids: string[]) =>
    client().batchGetFacilities({ ids }, callOptions(ctx(tenant)));
  const nameOf = (f: { documentJson: Uint8Array }) => document(f).name;

  it("answers the caller's facilities among the ids, each once; unknown, malformed and other tenants' ids are left out", async () => {
    const [a, b, c] = [await supplier("bt1", "A"), await supplier("bt1", "B"), await supplier("bt1", "C")];
    const foreign = await supplier("bt2", "Foreign");
    const { facilities } = await batch("bt1", [c, "nope", a, foreign, newId(), c, a.toUpperCase(), ""]);
    expect(facilities.map((f) => [f.id, nameOf(f)])).toEqual([
      [a, "A"],
      [c, "C"],
    ]);
    // The same message GetFacility answers.
    const single = (await client().getFacility({ id: a }, callOptions(ctx("bt1")))).facility;
    expect(facilities[0]).toEqual(single);
    expect((await batch("bt1", [b])).facilities.map(nameOf)).toEqual(["B"]);
    expect((await batch("bt2", [a, b, c, foreign])).facilities.map(nameOf)).toEqual(["Foreign"]);
  });

  it("answers nothing for no ids", async () => {
    expect((await batch("bt1", [])).facilities).toEqual([]);
  });

  it("takes 500 ids and rejects 501 as InvalidArgument", async () => {
    expect((await batch("bt1", Array.from({ length: 500 }, newId))).facilities).toEqual([]);
    await expectTooManyIds(batch("bt1", Array.from({ length: 501 }, newId)), "ids");
  });

  it("reads all ids with one statement, and none without ids", async () => {
    const { deps, statements } = countingDeps(svc.deps);
    const ids = [await supplier("bt3", "X"), await supplier("bt3", "Y"), newId()];
    expect(await batchGetFacilities(deps, ctx("bt3"), ids)).toHaveLength(2);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).toMatch(/tenant_id = \$1 and t\.id = any\(\$2::uuid\[\]\)/);
    expect(await batchGetFacilities(deps, ctx("bt3"), ["nope"])).toEqual([]);
    expect(await batchGetFacilities(deps, ctx("bt3"), [])).toEqual([]);
    expect(statements).toHaveLength(1);
  });
});

describe("search cursors over the wire", () => {
  it("SearchCategories answers one cursor per category only when asked", async () => {
    const client = createRpcClient(CatalogService, svc.rpcUrl, testCredentials);
    for (const name of ["A", "B", "C"]) {
      await client.createCategory({ body: { nameLocalized: { en_US: name } } }, callOptions(ctx("sc1")));
    }
    const plain = await client.searchCategories({ search: { size: 2 } }, callOptions(ctx("sc1")));
    expect(plain.categories).toHaveLength(2);
    expect(plain.pageInfo?.cursors).toEqual([]);
    const all = await client.searchCategories({ search: { withCursors: true } }, callOptions(ctx("sc1")));
    const cursors = all.pageInfo!.cursors;
    expect(cursors).toHaveLength(3);
    expect([cursors[0], cursors[2]]).toEqual([all.pageInfo!.startCursor, all.pageInfo!.endCursor]);
    const after = await client.searchCategories(
      { search: { after: cursors[0], withCursors: true } },
      callOptions(ctx("sc1")),
    );
    expect(after.categories.map((c) => c.id)).toEqual(all.categories.slice(1).map((c) => c.id));
    expect(after.pageInfo!.cursors).toEqual(cursors.slice(1));
  });
});
