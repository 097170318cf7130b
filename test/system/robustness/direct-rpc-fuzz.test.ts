/**
 * A hostile fuzz over direct RPC (issue 31): every write RPC of every service, called as an internal
 * team calls it (a caller token), over Connect JSON (raw bytes, so keys written twice, lone
 * surrogate escapes and numbers past 2^53 reach the service as sent) and gRPC binary.
 *
 * Seeds are real: a REST tour through the gateway makes one valid call of every write, and an
 * interceptor on the gateway's clients records the request each one sent to its service. Every run
 * takes a recorded request, changes one place of it (a field of the envelope or anything inside its
 * body: replaced by a hostile or weird value, removed, or a key added) and sends it directly.
 *
 * Holds: no answer is INTERNAL, UNKNOWN or any other server-side failure; every INVALID_ARGUMENT
 * names its field (our ErrorDetail); and afterwards nothing REST shows for the tenant is in a shape
 * REST would refuse (every list validates against the reference; no NUL, lone surrogate, unsafe
 * integer, or key a mutation added where REST takes none). Seeded (FUZZ_SEED).
 */
import http2 from "node:http2";
import {
  clone,
  type DescMessage,
  type DescMethod,
  type DescService,
  fromBinary,
  fromJson,
  type JsonValue,
  type Message,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { RequestContext } from "@fop/kit/context";
import { bearerInterceptor } from "@fop/kit/rpc/auth";
import { callOptions } from "@fop/kit/rpc/client";
import { testCallerToken } from "@fop/kit/testing/rpc";
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { fuzz, fuzzProperty, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import {
  HOSTILE_STRINGS,
  hostileValue,
  jsonText,
  RAW,
  RAW_NUMBERS,
  rawOf,
  withDuplicateKey,
} from "../../support/hostile.ts";
import { referenceMissing, referenceResponseErrors } from "../../support/reference.ts";
import { type System, startSystem } from "../../support/system.ts";

const TENANT = "direct-fuzz";
const RUNS = Number(process.env.DIRECT_RPC_FUZZ_RUNS ?? 1500);
const ctx: Omit<RequestContext, "traceId"> = {
  tenant: TENANT,
  principal: { userId: "u-1", username: "team", roles: ["ADMIN"], permissions: [] },
  client: { api: "RPC", rawInfo: "direct-rpc-fuzz test" },
};

const SERVICES = {
  catalog: CatalogService,
  picking: PickingService,
  loadunits: LoadUnitsService,
  carriers: CarriersService,
  returns: ReturnsService,
  notifications: NotificationsService,
} as const;
type ServiceName = keyof typeof SERVICES;

/**
 * Every method that takes input to act on: unary, not marked NO_SIDE_EFFECTS in the proto and not
 * named as a read (a few reads are not marked).
 */
const WRITES: { service: ServiceName; method: DescMethod }[] = Object.entries(SERVICES).flatMap(
  ([service, desc]) =>
    (desc as DescService).methods
      .filter(
        (m) =>
          m.methodKind === "unary" &&
          m.idempotency !== MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS &&
          !/^(Get|List|Search|BatchGet|Find|Lookup)[A-Z]/.test(m.name),
      )
      .map((method) => ({ service: service as ServiceName, method })),
);

/** Calls the gateway never makes (no REST route leads to them), so the tour cannot record them. */
const EXTRA_SEEDS: Record<string, () => JsonValue> = {
  // Asked by other services and direct callers, for a delivery promise.
  "CarriersService/EstimateDeliveryDates": () => ({
    carrierId: ids.carrier,
    handoverAt: "2026-12-24T09:00:00Z",
    timeZone: "Europe/Berlin",
    source: { countryCode: "DE", postalCode: "40764" },
    destination: { countryCode: "DE", postalCode: "80331" },
  }),
};
/** Ids the tour created that extra seeds name. */
const ids = { carrier: "" };

let sys: System;
let token: string;
/** Requests the gateway sent, by "Service/Method". */
const recorded = new Map<string, Message[]>();
const recorder: Interceptor = (next) => async (req) => {
  if (!req.stream) {
    const key = `${req.service.name}/${req.method.name}`;
    const list = recorded.get(key) ?? [];
    if (list.length < 5) list.push(clone(req.method.input, req.message as Message));
    recorded.set(key, list);
  }
  return next(req);
};

beforeAll(async () => {
  sys = await startSystem({ gatewayRpcInterceptors: [recorder] });
  token = await testCallerToken("internal-team", [TENANT]);
  await tour(sys.as(await sys.token(TENANT, { roles: ["ADMIN"] })));
  for (const [key, seed] of Object.entries(EXTRA_SEEDS)) {
    const { method } = WRITES.find(({ method }) => `${method.parent.name}/${method.name}` === key)!;
    recorded.set(key, [fromJson(method.input, seed())]);
  }
}, 120_000);
afterAll(async () => {
  await sys?.close();
});

/** One valid REST call of every write (each must succeed), so the recorder sees each RPC. */
async function tour(api: ReturnType<System["as"]>) {
  const failed: string[] = [];
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) failed.push(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.body;
  };
  /** The version of a configuration (0 before its first write). */
  const versionOf = async (path: string) => {
    const res = await api("GET", path);
    return res.status === 200 ? (res.body.version as number) : 0;
  };
  // Catalog
  const facility = await ok("POST", "/api/facilities", { name: "F", address: facilityAddress });
  const other = await ok("POST", "/api/facilities", { name: "G", address: facilityAddress });
  await ok("PATCH", `/api/facilities/${other.id}`, { type: "MANAGED_FACILITY", version: 1, name: "G2" });
  await ok("PUT", `/api/facilities/${other.id}`, {
    type: "MANAGED_FACILITY",
    version: 2,
    name: "G3",
    status: "ONLINE",
    locationType: "WAREHOUSE",
    capacityEnabled: false,
    fulfillmentProcessBuffer: 240,
    address: facilityAddress,
  });
  const closing = await ok("POST", "/api/facilities", { name: "H", address: facilityAddress });
  await ok("DELETE", `/api/facilities/${closing.id}`);
  const category = await ok("POST", "/api/categories", {
    tenantCategoryId: "C1",
    nameLocalized: { en_US: "C" },
  });
  await ok("PUT", `/api/categories/${category.id}`, { version: 1, nameLocalized: { en_US: "D" } });
  const doomed = await ok("POST", "/api/categories", { nameLocalized: { en_US: "X" } });
  await ok("DELETE", `/api/categories/${doomed.id}`);
  const group = await ok("POST", "/api/facilitygroups", {
    tenantFacilityGroupId: "G1",
    nameLocalized: { en_US: "G" },
    facilityRefs: [facility.id],
  });
  await ok("PATCH", `/api/facilitygroups/${group.id}`, { version: 1, nameLocalized: { en_US: "H" } });
  await ok("POST", `/api/facilitygroups/${group.id}/actions`, {
    name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP",
    facilitiesToAdd: [other.id],
  });
  const group2 = await ok("POST", "/api/facilitygroups", {
    tenantFacilityGroupId: "G2",
    nameLocalized: { en_US: "Z" },
    facilityRefs: [],
  });
  await ok("DELETE", `/api/facilitygroups/${group2.id}`);
  // Picking
  const jobs = [];
  for (let i = 0; i < 6; i++) jobs.push(await ok("POST", "/api/pickjobs", pickJobBody(facility.id)));
  await ok("POST", `/api/pickjobs/${jobs[0].id}/actions`, { name: "START", version: 1 });
  await ok("PATCH", `/api/pickjobs/${jobs[1].id}`, {
    version: 1,
    actions: [{ action: "ModifyPickJob", status: "IN_PROGRESS" }],
  });
  const run = await ok("POST", "/api/pickruns", {
    facilityRef: facility.id,
    pickJobRefs: [jobs[2].id, jobs[3].id],
  });
  await ok("POST", `/api/pickruns/${run.id}/actions`, {
    name: "REMOVE_PICK_JOB",
    version: run.version,
    payload: { pickJobId: jobs[3].id },
  });
  const runNow = await ok("GET", `/api/pickruns/${run.id}`);
  await ok("PATCH", `/api/pickruns/${run.id}`, {
    version: runNow.version,
    actions: [{ action: "ModifyPickRunLineItem", id: runNow.pickLineItems[0].id, picked: 1 }],
  });
  const run2 = await ok("POST", "/api/pickruns", {
    facilityRef: facility.id,
    pickJobRefs: [jobs[4].id, jobs[5].id],
  });
  await ok("PATCH", `/api/pickruns/${run2.id}/pickjobs`, {
    version: run2.version,
    actions: [{ action: "RemovePickJobFromPickRun", pickJobRef: jobs[5].id }],
  });
  const config = await ok("GET", "/api/configurations/picking");
  await ok("PATCH", "/api/configurations/picking", {
    version: config.version,
    scanningConfiguration: {
      scanningType: "MUST_SCAN_EACH",
      scanningRule: { values: [{ priority: 1, scanningRuleType: "ARTICLE" }] },
    },
  });
  // Load units
  const stack = await ok("POST", "/api/stacks", { facilityRefs: [facility.id], processRefs: [] });
  const [unit, unit2] = await ok("POST", "/api/loadunits", {
    loadUnits: [
      {
        pickJobRefs: [jobs[0].id],
        stackRef: stack.id,
        loadUnitLineItems: [
          {
            article: { tenantArticleId: "A", title: "T" },
            recordableAttributes: [{ keyLocalized: { en_US: "k" }, recordingRule: "OPTIONAL" }],
          },
        ],
      },
      { pickJobRefs: [jobs[0].id] },
    ],
  });
  await ok("POST", `/api/pickjobs/${jobs[1].id}/loadunits`, { codes: ["C"], stackRef: stack.id });
  await ok("PATCH", `/api/loadunits/${unit.id}`, { ...unit, codes: ["P"] });
  await ok("POST", `/api/loadunits/${unit.id}/actions`, {
    name: "UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES",
    version: unit.version + 1,
    recordableAttributes: [
      { recordableAttributeId: unit.loadUnitLineItems[0].recordableAttributes[0].id, value: "v" },
    ],
  });
  await ok("DELETE", `/api/loadunits/${unit2.id}`);
  const [unit3] = await ok("POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [jobs[1].id] }] });
  await ok("DELETE", `/api/loadunits?pickJobRef=${jobs[1].id}&id=${unit3.id}`);
  const oct = await ok("POST", "/api/operativecontainertypes", {
    nameLocalized: { en_US: "Box" },
    allowedOperativeTypes: ["PICKING"],
  });
  await ok("PATCH", `/api/operativecontainertypes/${oct.id}`, { version: 1, priority: 3 });
  await ok("PUT", `/api/operativecontainertypes/${oct.id}/icon`, {
    name: "i.png",
    content:
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  });
  // Carriers
  const carrier = await ok("POST", "/api/carriers", { key: "CUSTOM_FUZZ", name: "Fuzz" });
  ids.carrier = carrier.id;
  await ok("PATCH", `/api/carriers/${carrier.id}`, {
    version: 1,
    actions: [{ action: "ModifyCarrier", name: "N" }],
  });
  const mapping = await ok("POST", `/api/carriers/${carrier.id}/configuration/countryservicemappings`, {
    carrierConfigurationVersion: 1,
    source: { countryCode: "DE" },
    destinations: [{ countryCode: "DE" }],
    transitTime: { minTransitDays: 1, maxTransitDays: 2 },
  });
  const carrierConfig = await ok("GET", `/api/carriers/${carrier.id}/configuration`);
  await ok("PATCH", `/api/carriers/${carrier.id}/configuration/countryservicemappings/${mapping.id}`, {
    carrierConfigurationVersion: carrierConfig.version,
    products: ["P"],
  });
  await ok("DELETE", `/api/carriers/${carrier.id}/configuration/countryservicemappings/${mapping.id}`);
  const configNow = await ok("GET", `/api/carriers/${carrier.id}/configuration`);
  await ok("PUT", `/api/carriers/${carrier.id}/configuration`, {
    version: configNow.version,
    carrierRef: carrier.id,
    returnLabel: true,
  });
  await ok("PUT", "/api/configurations/transittime", {
    version: await versionOf("/api/configurations/transittime"),
    calculationStrategy: "EARLIEST",
  });
  // Returns
  for (const kind of ["cancelationreasons", "reroutedescriptions"]) {
    const reason = await ok("POST", `/api/${kind}`, { reason: "R", reasonLocalized: { en_US: "R" } });
    await ok("PUT", `/api/${kind}/${reason.id}`, {
      version: 1,
      reason: "S",
      reasonLocalized: { en_US: "S" },
    });
    const gone = await ok("POST", `/api/${kind}`, { reason: "X", reasonLocalized: { en_US: "X" } });
    await ok("DELETE", `/api/${kind}/${gone.id}`);
  }
  const irj = await ok("POST", "/api/itemreturnjobs", {
    originFacilityRefs: [facility.id],
    status: "OPEN",
    consumerAddresses: [facilityAddress],
    returnableLineItems: [
      { article: { tenantArticleId: "A", title: "T" }, delivered: 3 },
      { article: { tenantArticleId: "B", title: "U" }, delivered: 1 },
    ],
    notReturnableLineItems: [{ article: { tenantArticleId: "N", title: "V" }, delivered: 1 }],
  });
  let job = await ok("POST", `/api/itemreturnjobs/${irj.id}/itemreturns`, {
    itemReturnJobVersion: 1,
    itemReturnForCreation: {
      status: "OPEN",
      returnFacilityRef: facility.id,
      returnedLineItems: [{ itemReturnJobLineItemRef: irj.returnableLineItems[0].id, status: "OPEN" }],
      returnedNotReturnableLineItems: [
        { itemReturnJobLineItemRef: irj.notReturnableLineItems[0].id, status: "OPEN" },
      ],
    },
  });
  const ir = job.itemReturns[0];
  const irPath = `/api/itemreturnjobs/${irj.id}/itemreturns/${ir.id}`;
  job = await ok("PATCH", `${irPath}/returnedlineitems/${ir.returnedLineItems[0].id}`, {
    itemReturnJobVersion: job.version,
    status: "IN_PROGRESS",
  });
  job = await ok("PUT", `${irPath}/returnedlineitems`, {
    itemReturnJobVersion: job.version,
    returnedLineItems: [{ itemReturnJobLineItemRef: irj.returnableLineItems[0].id, status: "OPEN" }],
  });
  job = await ok("POST", `${irPath}/actions`, { name: "StartItemReturn", itemReturnJobVersion: job.version });
  job = await ok("POST", `${irPath}/parcels`, {
    carrierRef: carrier.id,
    items: [{ quantity: 1, article: { tenantArticleId: "A", title: "T" } }],
  });
  job = await ok("POST", `/api/itemreturnjobs/${irj.id}/actions`, {
    name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB",
    version: (await ok("GET", `/api/itemreturnjobs/${irj.id}`)).version,
    notReturnableLineItems: [],
  });
  const second = await ok("POST", `/api/itemreturnjobs/${irj.id}/itemreturns`, {
    itemReturnJobVersion: job.version,
    itemReturnForCreation: { status: "OPEN", returnFacilityRef: facility.id, returnedLineItems: [] },
  });
  const secondIr = second.itemReturns.find((x: { id: string }) => x.id !== ir.id);
  await ok(
    "DELETE",
    `/api/itemreturnjobs/${irj.id}/itemreturns/${secondIr.id}?itemReturnJobVersion=${second.version}`,
  );
  await ok("PUT", "/api/configurations/return", {
    version: await versionOf("/api/configurations/return"),
    active: true,
    availableReturnReasons: [{ reasonLocalized: { en_US: "R" } }],
  });
  await ok("PUT", "/api/configurations/handover", {
    version: await versionOf("/api/configurations/handover"),
    refusedReasons: [],
  });
  // Notifications
  await ok("PUT", "/api/configurations/notifications", {
    channels: [{ type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] }],
  });
  const notificationConfig = await ok("GET", "/api/configurations/notifications");
  await ok("POST", "/api/configurations/notifications/actions", {
    name: "ADD_CHANNEL",
    version: notificationConfig.version,
    channel: { type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"], facilityRefs: [facility.id] },
  });
  const withChannel = await ok("GET", "/api/configurations/notifications");
  await ok(
    "DELETE",
    `/api/configurations/notifications/channels/${withChannel.channels.at(-1).id}?version=${withChannel.version}`,
  );
  const subscription = await ok("POST", "/api/subscriptions", {
    name: "s",
    event: "PICK_JOB_CREATED",
    target: { type: "WEBHOOK", callbackUrl: "http://127.0.0.1:9/hook" },
  });
  const gone = await ok("POST", "/api/subscriptions", {
    name: "t",
    event: "PICK_JOB_CREATED",
    target: { type: "WEBHOOK", callbackUrl: "http://127.0.0.1:9/hook" },
  });
  await ok("DELETE", `/api/subscriptions/${gone.id}`);
  void subscription;
  expect(failed).toEqual([]);
}

describe("the REST tour", () => {
  it("recorded a seed for every write RPC of every service", () => {
    const missing = WRITES.map(({ method }) => `${method.parent.name}/${method.name}`).filter(
      (key) => !recorded.has(key),
    );
    expect(missing).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

/** What a direct call was answered: OK, or a Connect code with our ErrorDetail's code and field. */
interface Outcome {
  code: "ok" | string;
  detailCode?: string | undefined;
  field?: string | undefined;
  message?: string;
}

const contextHeaders = (): Record<string, string> => {
  const headers = new Headers(callOptions(ctx).headers);
  return Object.fromEntries(headers.entries());
};

const sessions = new Map<string, http2.ClientHttp2Session>();
/** A Connect unary call with `body` as the raw JSON bytes (no client re-encodes them). */
function connectJsonRaw(service: ServiceName, method: DescMethod, body: string | Buffer): Promise<Outcome> {
  const url = sys.services[service].rpcUrl;
  let session = sessions.get(url);
  if (!session || session.closed || session.destroyed) {
    session = http2.connect(url);
    session.on("error", () => {});
    sessions.set(url, session);
  }
  const s = session;
  return new Promise((resolve, reject) => {
    const req = s.request({
      ":method": "POST",
      ":path": `/${method.parent.typeName}/${method.name}`,
      "content-type": "application/json",
      "connect-protocol-version": "1",
      "connect-timeout-ms": "15000",
      authorization: `Bearer ${token}`,
      ...contextHeaders(),
    });
    const chunks: Buffer[] = [];
    let status = 0;
    req.on("response", (h) => {
      status = Number(h[":status"]);
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (status === 200) return resolve({ code: "ok" });
      let err: { code?: string; message?: string; details?: { type: string; value: string }[] };
      try {
        err = JSON.parse(text);
      } catch {
        return resolve({ code: `http ${status}`, message: text.slice(0, 200) });
      }
      const detail = err.details?.find((d) => d.type === ErrorDetailSchema.typeName);
      const decoded = detail ? fromBinary(ErrorDetailSchema, Buffer.from(detail.value, "base64")) : undefined;
      resolve({
        code: err.code ?? `http ${status}`,
        detailCode: decoded?.code,
        field: decoded?.field,
        message: err.message,
      });
    });
    req.end(body);
  });
}

const grpcClients = new Map<ServiceName, ReturnType<typeof createClient>>();
async function grpcBinary(service: ServiceName, method: DescMethod, message: Message): Promise<Outcome> {
  let client = grpcClients.get(service);
  if (!client) {
    client = createClient(
      SERVICES[service] as DescService,
      createGrpcTransport({
        baseUrl: sys.services[service].rpcUrl,
        interceptors: [bearerInterceptor(async () => token)],
      }),
    );
    grpcClients.set(service, client);
  }
  const call = (client as unknown as Record<string, (m: Message, o: unknown) => Promise<unknown>>)[
    method.localName
  ]!;
  try {
    await call(message, callOptions(ctx, { timeoutMs: 15_000 }));
    return { code: "ok" };
  } catch (e) {
    const err = ConnectError.from(e);
    const detail = err.findDetails(ErrorDetailSchema)[0];
    return {
      code: Code[err.code]!.replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase()),
      detailCode: detail?.code,
      field: detail?.field,
      message: err.rawMessage,
    };
  }
}

/** Codes that mean the service failed, not the request (a refusal the service could not send among them). */
const SERVER_FAILURES = new Set([
  "internal",
  "unknown",
  "data_loss",
  "unimplemented",
  "unavailable",
  // A call that ran into its 15 s deadline: the service hung on it (or never answered).
  "deadline_exceeded",
]);

/** RAW number markers as the numbers a binary caller can send (a double: 1e400 is Infinity). */
function numbersOf(value: unknown): unknown {
  const raw = rawOf(value);
  if (raw !== undefined) return Number(raw);
  if (Array.isArray(value)) return value.map(numbersOf);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numbersOf(v)]));
  return value;
}

describe(`direct RPC fuzz (seed ${SEED})`, () => {
  it(`${RUNS} hostile calls over Connect JSON and gRPC binary: no server failure, every refusal names its field`, async () => {
    const f = fuzz([], { planted: hostileValue });
    const seeds = WRITES.filter(({ method }) => recorded.has(`${method.parent.name}/${method.name}`));
    const problems: string[] = [];
    const tally: Record<string, number> = {};
    const perMethod: Record<string, number> = {};
    await fuzzProperty(f, RUNS, async () => {
      const { service, method } = f.pick(seeds);
      const key = `${method.parent.name}/${method.name}`;
      const seed = f.pick(recorded.get(key)!);
      const json = toJson(method.input, seed) as Record<string, unknown>;
      // Mostly one change anywhere (envelope or body); sometimes a typed field set to a hostile value.
      const changed = f.r() < 0.8 ? f.mutate(json) : withHostileField(json, method.input, f);
      const wire = f.r() < 0.5 ? "connect-json" : "grpc-binary";
      let outcome: Outcome;
      let sent = wire;
      let text = jsonText(changed);
      if (wire === "grpc-binary") {
        let message: Message | undefined;
        try {
          message = fromJson(method.input, numbersOf(changed) as JsonValue, { ignoreUnknownFields: true });
        } catch {
          message = undefined; // no binary message has this shape: send it as JSON instead
        }
        if (message) outcome = await grpcBinary(service, method, message);
        else {
          sent = "connect-json";
          outcome = await connectJsonRaw(service, method, text);
        }
      } else {
        if (f.r() < 0.1) text = withDuplicateKey(text, jsonText(hostileValue(f)), f);
        outcome = await connectJsonRaw(service, method, text);
      }
      tally[`${sent} ${outcome.code}`] = (tally[`${sent} ${outcome.code}`] ?? 0) + 1;
      perMethod[key] = (perMethod[key] ?? 0) + 1;
      const shown = `${sent} ${key} ${text.slice(0, 400)} -> ${JSON.stringify(outcome)}`;
      if (SERVER_FAILURES.has(outcome.code) || outcome.code.startsWith("http"))
        problems.push(`server failure: ${shown}`);
      else if (outcome.code === "invalid_argument" && !outcome.field)
        problems.push(`refusal without a field: ${shown}`);
    });
    console.log(`seed ${SEED}: ${JSON.stringify(tally)}`);
    console.log(`calls per write: ${JSON.stringify(perMethod)}`);
    expect(problems.slice(0, 20), `seed ${SEED}`).toEqual([]);
    // The fuzz reached every write, and bodies one change from valid got through: some succeeded.
    expect(Object.keys(perMethod).length).toBe(seeds.length);
    expect(Object.entries(tally).filter(([k]) => k.endsWith(" ok")).length).toBeGreaterThan(0);
  }, 600_000);

  it("the check of what is stored sees what REST would refuse", () => {
    expect(violations({ a: ["x\u0000"], b: { nope: 1 }, c: 2 ** 60, d: "\ud800" }, "").problems).toHaveLength(
      4,
    );
    expect(
      violations({ customAttributes: { nope: 1 }, nameLocalized: { nope: "x" }, a: "ok", n: 2 ** 52 }, "")
        .problems,
    ).toEqual([]);
  });

  it("afterwards, nothing REST shows for the tenant is in a shape REST would refuse", async () => {
    const api = sys.as(await sys.token(TENANT, { roles: ["ADMIN"] }));
    const lists = [
      "/api/facilities",
      "/api/categories",
      "/api/facilitygroups",
      "/api/pickjobs",
      "/api/loadunits",
      "/api/stacks",
      "/api/operativecontainertypes",
      "/api/loadunittypes",
      "/api/carriers",
      "/api/cancelationreasons",
      "/api/reroutedescriptions",
      "/api/itemreturnjobs",
      "/api/subscriptions",
      "/api/configurations/picking",
      "/api/configurations/return",
      "/api/configurations/handover",
      "/api/configurations/notifications",
      "/api/configurations/transittime",
    ];
    const problems: string[] = [];
    let documents = 0;
    for (const path of lists) {
      const res = await api("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      if (!referenceMissing) {
        const errors = referenceResponseErrors("GET", path, 200, res.body);
        if (errors?.length) problems.push(`${path}: ${JSON.stringify(errors).slice(0, 500)}`);
      }
      const found = violations(res.body, path);
      documents += found.values;
      problems.push(...found.problems);
    }
    if (referenceMissing) console.warn(referenceMissing);
    expect(documents).toBeGreaterThan(100);
    expect(problems.slice(0, 20)).toEqual([]);
  });
});

/** Objects REST takes any key in: custom attributes, headers, locale -> text maps (`nameLocalized`). */
const OPEN_MAPS = /customAttributes|headers|Localized\/[^/]+$/;

/** What in `body` (shown at `path`) REST would refuse to take: NUL, lone surrogates, unsafe integers, a mutation's key. */
function violations(body: unknown, path: string): { values: number; problems: string[] } {
  const problems: string[] = [];
  let values = 0;
  walk(body, path, (where, value, key) => {
    values++;
    if (typeof value === "string" && (value.includes("\u0000") || !value.isWellFormed()))
      problems.push(`${where}: a string REST refuses (NUL or a lone surrogate)`);
    if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value))
      problems.push(`${where}: an integer past 2^53 (${value})`);
    if (key === "nope" && !OPEN_MAPS.test(where)) problems.push(`${where}: a key REST does not take`);
  });
  return { values, problems };
}

function walk(
  value: unknown,
  where: string,
  visit: (where: string, value: unknown, key: string) => void,
  key = "",
): void {
  visit(where, value, key);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) walk(v, `${where}/${i}`, visit, String(i));
  } else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) walk(v, `${where}/${k}`, visit, k);
}

/** `json` with one typed field of `schema` (not a body) set to a hostile value of its kind. */
function withHostileField(
  json: Record<string, unknown>,
  schema: DescMessage,
  f: ReturnType<typeof fuzz>,
): Record<string, unknown> {
  const fields = schema.fields.filter((x) => x.message?.typeName !== "google.protobuf.Struct");
  if (fields.length === 0) return f.mutate(json);
  const field = f.pick(fields);
  const copy = structuredClone(json);
  const value = (): unknown => {
    if (field.enum) return f.pick([999, -1, "NOPE", "", "\u0000"]);
    if ("scalar" in field && field.scalar !== undefined) {
      // Strings get hostile strings; numbers get extremes and raw numbers.
      return field.scalar === ScalarType.STRING
        ? f.pick(HOSTILE_STRINGS)
        : f.pick(["-1", "0", "9223372036854775807", "-9223372036854775808", ...RAW_NUMBERS.map(RAW)]);
    }
    return f.pick([null, {}, [], "x", 1]);
  };
  const v = value();
  copy[field.jsonName] = field.fieldKind === "list" ? [v, v] : v;
  return copy;
}
