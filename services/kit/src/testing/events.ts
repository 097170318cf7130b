/**
 * A test bed for the kit's event machinery against real Postgres and JetStream: a schema with the
 * kit's event tables (outbox, inbox, dead letters) and a private stream, both gone after the file's
 * tests. Call at the top of a test file; `db` and `nats` are there once its beforeAll ran.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, inject } from "vitest";
import type { RequestContext } from "../context.ts";
import { createSqlPool, type SqlPool } from "../db/sql.ts";
import { kitEventMigrations } from "../events/migrations.ts";
import { connectNats, type Nats } from "../events/nats.ts";
import { createLogger } from "../logger.ts";
import type { ServiceModule } from "../service.ts";
import { createTestDatabase, type TestDatabase } from "./db.ts";

/** The writer of the test events. */
export const EVENT_TEST_CONTEXT: RequestContext = {
  tenant: "t1",
  principal: { userId: "u1", username: "ada", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "test" },
  traceId: "",
};

export interface EventsTestBed {
  /** `kit_<name>_<random>`. */
  readonly schema: string;
  /** `<n><random>.events`. */
  readonly prefix: string;
  /** `<NAME>_T_<RANDOM>`. */
  readonly stream: string;
  /** The random part of the names (unique per test file run). */
  readonly suffix: string;
  readonly silent: ReturnType<typeof createLogger>;
  /** The schema's own database URL (for the relay's pool). */
  databaseUrl: string;
  db: SqlPool;
  nats: Nats;
}

export function useEventsTestBed(name: string): EventsTestBed {
  const suffix = randomBytes(4).toString("hex");
  const bed = {
    schema: `kit_${name}_${suffix}`,
    prefix: `${name[0]}${suffix}.events`,
    stream: `${name.toUpperCase()}_T_${suffix.toUpperCase()}`,
    suffix,
    silent: createLogger({ service: "test", level: "silent" }),
  } as EventsTestBed;
  const module = {
    schema: bed.schema,
    entities: [],
    migrations: kitEventMigrations,
  } as unknown as ServiceModule<unknown>;
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    tdb = await createTestDatabase(inject("adminUrl"), [module]);
    bed.databaseUrl = tdb.serviceUrl(bed.schema);
    bed.db = createSqlPool(bed.databaseUrl, { max: 2 });
    bed.nats = await connectNats(
      inject("natsUrl"),
      `${name}-test`,
      {
        stream: bed.stream,
        subjectPrefix: bed.prefix,
        replicas: 1,
        maxAgeMs: 600_000,
        duplicateWindowMs: 60_000,
      },
      bed.silent,
    );
    await bed.nats.ensureStream();
  });
  afterAll(async () => {
    await bed.nats?.jsm.streams.delete(bed.stream).catch(() => {});
    await bed.nats?.close();
    await bed.db?.end();
    await tdb?.drop();
  });
  return bed;
}
