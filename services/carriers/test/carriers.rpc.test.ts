/**
 * CarriersService over a real Connect client and Postgres: BatchGetConfigurations.
 */
import { randomBytes } from "node:crypto";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { countingDeps, expectTooManyIds, rpcContext, testCredentials } from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { carriersService } from "../src/service.ts";
import { readConfigurations } from "../src/usecases/configurations.ts";
import type { CarriersDeps } from "../src/usecases/deps.ts";

const suffix = randomBytes(4).toString("hex");
const STREAM = `CARRIERS_T_${suffix.toUpperCase()}`;
let db: TestDatabase;
let svc: RunningService<CarriersDeps>;
const ctx = rpcContext;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [carriersService]);
  svc = await startTestService(carriersService, {
    DATABASE_URL: db.serviceUrl("carriers"),
    EVENTS_STREAM: STREAM,
    EVENTS_SUBJECT_PREFIX: `c${suffix}.events`,
    CARRIER_CREDENTIALS_KEY: randomBytes(32).toString("base64"),
  });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.base.nats.jsm.streams.delete(STREAM).catch(() => {});
  await svc?.close();
  await db?.drop();
});

const client = () => createRpcClient(CarriersService, svc.rpcUrl, testCredentials);
let n = 0;
const carrier = async (tenant: string) =>
  (
    await client().createCarrier(
      { body: { key: `CUSTOM_C${++n}`, name: `Carrier ${n}` } },
      callOptions(ctx(tenant)),
    )
  ).carrier!.id;
/** Adds a mapping (creating the configuration first when the carrier has none); its id. */
const mapping = async (tenant: string, carrierId: string, countryCode: string) => {
  const { configuration } = await client().getConfiguration({ carrierId }, callOptions(ctx(tenant)));
  const { mapping } = await client().createCountryServiceMapping(
    {
      carrierId,
      body: {
        carrierConfigurationVersion: Number(configuration!.version),
        source: { countryCode: "DE" },
        destinations: [{ countryCode }],
      },
    },
    callOptions(ctx(tenant)),
  );
  return mapping!.id;
};
const configs = (tenant: string, carrierIds: string[]) =>
  client().batchGetConfigurations({ carrierIds }, callOptions(ctx(tenant)));
const tooMany = (call: Promise<unknown>) => expectTooManyIds(call, "carrier_ids");
const counting = () => countingDeps(svc.deps);
const byId = <T extends { carrierId: string }>(list: T[]) =>
  [...list].sort((x, y) => (x.carrierId < y.carrierId ? -1 : 1));

describe("BatchGetConfigurations", () => {
  it("answers the stored configuration of each of the caller's carriers, as GetConfiguration does; carriers without one, unknown, malformed and other tenants' ids are absent", async () => {
    const [a, b, none] = [await carrier("t1"), await carrier("t1"), await carrier("t1")];
    const foreign = await carrier("t2");
    // The first read creates the default (and answers it serialized by the service); compare with a
    // later read, which answers the stored text as the batch does.
    const stored = async (tenant: string, carrierId: string) => {
      await client().getConfiguration({ carrierId }, callOptions(ctx(tenant)));
      return (await client().getConfiguration({ carrierId }, callOptions(ctx(tenant)))).configuration!;
    };
    const ofA = await stored("t1", a);
    await mapping("t1", b, "AT");
    const ofB = await stored("t1", b);
    const ofForeign = await stored("t2", foreign);
    const { configurations } = await configs("t1", [
      b,
      "nope",
      none,
      a,
      foreign,
      newId(),
      a.toUpperCase(),
      b,
    ]);
    expect(configurations.map((c) => [c.carrierId, c.configuration])).toEqual(
      byId([
        { carrierId: a, configuration: ofA },
        { carrierId: b, configuration: ofB },
      ]).map((c) => [c.carrierId, c.configuration]),
    );
    expect(ofB.version).toBe(2n);
    // A read only: the carrier without a configuration still has none stored.
    expect((await configs("t1", [none])).configurations).toEqual([]);
    expect((await configs("t2", [a, b, foreign])).configurations.map((c) => c.configuration)).toEqual([
      ofForeign,
    ]);
  });

  it("answers nothing for no ids and rejects more than 500", async () => {
    expect((await configs("t1", [])).configurations).toEqual([]);
    expect((await configs("t1", Array.from({ length: 500 }, newId))).configurations).toEqual([]);
    await tooMany(configs("t1", Array.from({ length: 501 }, newId)));
  });

  it("reads all carriers with one statement, and none without ids", async () => {
    const { deps, statements } = counting();
    const [a, b] = [await carrier("t3"), await carrier("t3")];
    await mapping("t3", a, "DE");
    await mapping("t3", b, "DE");
    expect(await readConfigurations(deps, ctx("t3"), [a, b, newId()])).toHaveLength(2);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).toMatch(/tenant_id = \$1 and carrier_id = any\(\$2::uuid\[\]\)/);
    expect(await readConfigurations(deps, ctx("t3"), ["nope"])).toEqual([]);
    expect(await readConfigurations(deps, ctx("t3"), [])).toEqual([]);
    expect(statements).toHaveLength(1);
  });
});
