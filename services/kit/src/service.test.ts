/**
 * A service's drain (startService's close(), what SIGTERM runs): unready at once, the running call
 * answered, nothing served after it ends (real Postgres and NATS).
 */
import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { kitEventMigrations } from "./events/migrations.ts";
import { callOptions, createRpcClient } from "./rpc/client.ts";
import type { ServiceModule } from "./service.ts";
import { createTestDatabase, type TestDatabase } from "./testing/db.ts";
import { testCredentials } from "./testing/rpc.ts";
import { startTestService } from "./testing/service.ts";

const suffix = randomBytes(4).toString("hex");
const SCHEMA = `kit_service_${suffix}`;
const STREAM = `SERVICE_T_${suffix.toUpperCase()}`;
const ctx = {
  tenant: "t1",
  principal: { userId: "u", username: "ada", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "test" },
};

/** A catalog whose GetCategory takes as many ms as its id says. */
const slowCatalog: ServiceModule<object> = {
  name: "catalog",
  schema: SCHEMA,
  entities: [],
  migrations: kitEventMigrations,
  config: {},
  createDeps: () => ({}),
  routes: () => (router) =>
    router.service(CatalogService, {
      async getCategory(req) {
        await new Promise((r) => setTimeout(r, Number(req.id)));
        return { category: { id: req.id } };
      },
    }),
};

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(inject("adminUrl"), [slowCatalog as ServiceModule<unknown>]);
});
afterAll(async () => {
  await tdb?.drop();
});

describe("a service's drain", () => {
  it("turns unready at once, answers the running call, then stops serving", async () => {
    const svc = await startTestService(slowCatalog, {
      DATABASE_URL: tdb.serviceUrl(SCHEMA),
      EVENTS_STREAM: STREAM,
      EVENTS_SUBJECT_PREFIX: `s${suffix}.events`,
    });
    const readyz = () =>
      fetch(`${svc.adminUrl}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
    try {
      expect(await readyz()).toBe(200);
      const client = createRpcClient(CatalogService, svc.rpcUrl, testCredentials, { reconnectWindowMs: 0 });
      const running = client.getCategory({ id: "600" }, callOptions(ctx));
      await new Promise((r) => setTimeout(r, 100));
      const closed = svc.close();
      expect(await readyz()).toBe(503);
      expect((await running).category?.id).toBe("600");
      await closed;
      expect(await readyz()).toBe(0);
      const after = ConnectError.from(
        await client.getCategory({ id: "0" }, callOptions(ctx)).catch((e) => e),
      );
      expect(after.code).toBe(Code.Unavailable);
    } finally {
      await svc.close();
      const { connect } = await import("@nats-io/transport-node");
      const { jetstreamManager } = await import("@nats-io/jetstream");
      const nc = await connect({ servers: inject("natsUrl") });
      await (await jetstreamManager(nc)).streams.delete(STREAM).catch(() => {});
      await nc.close();
    }
  });
});
