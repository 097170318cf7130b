/** The catalog over a real Connect client (Connect and gRPC protocols), real Postgres. */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createLogger } from "@fop/kit/logger";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import { loadServiceConfig, type RunningService, startService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { catalogService } from "../src/service.ts";
import type { CatalogDeps } from "../src/usecases/deps.ts";

let db: TestDatabase;
let svc: RunningService<CatalogDeps>;
const ctx = (tenant: string) => ({
  tenant,
  principal: { userId: "u", username: "u", roles: [], permissions: [] },
  client: { api: "RPC", rawInfo: "test" },
});

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [catalogService]);
  svc = await startService(
    catalogService,
    loadServiceConfig(catalogService, { DATABASE_URL: db.serviceUrl("catalog"), PORT: "0", ADMIN_PORT: "0" }),
    { logger: createLogger({ service: "catalog", level: "silent" }) },
  );
});
afterAll(async () => {
  await svc?.close();
  await db?.drop();
});

describe("CatalogService over Connect", () => {
  it("creates and reads a category, scoped to the calling tenant", async () => {
    const client = createRpcClient(CatalogService, svc.rpcUrl);
    const { category } = await client.createCategory(
      { nameLocalized: { en_US: "Tea" }, tenantCategoryId: "TEA" },
      callOptions(ctx("t1")),
    );
    // Answers carry id, version and the REST read model as JSON bytes (catalog.proto).
    const doc = (c: { documentJson: Uint8Array } | undefined) =>
      JSON.parse(Buffer.from(c!.documentJson).toString("utf8"));
    expect(category).toMatchObject({ version: 1n });
    expect(doc(category)).toMatchObject({ id: category!.id, version: 1, tenantCategoryId: "TEA" });
    const read = (await client.getCategory({ id: category!.id }, callOptions(ctx("t1")))).category;
    expect(doc(read)).toEqual(doc(category));
    expect(doc(read).nameLocalized).toEqual({ en_US: "Tea" });
    const err = await client.getCategory({ id: category!.id }, callOptions(ctx("t2"))).catch((e) => e);
    expect(ConnectError.from(err).code).toBe(Code.NotFound);
    expect(ConnectError.from(err).findDetails(ErrorDetailSchema)[0]?.code).toBe("CATEGORY_NOT_FOUND");
  });

  it("rejects calls without a tenant", async () => {
    const client = createRpcClient(CatalogService, svc.rpcUrl);
    const err = await client.listCategories({}).catch((e) => e);
    expect(ConnectError.from(err).code).toBe(Code.Unauthenticated);
  });

  it("speaks the gRPC protocol too, including the standard health check", async () => {
    const transport = createGrpcTransport({ baseUrl: svc.rpcUrl });
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
    expect(await (await fetch(`${svc.adminUrl}/metrics`)).text()).toMatch(/fop_request_duration_seconds/);
  });
});
