/**
 * 300 random malformed requests against the carrier routes (carriers and their PATCH, the
 * configuration's GET and PUT, country service mappings, transit time): each is answered with a
 * 2xx/4xx and the platform's error body, never a 5xx, and never with a credential secret. Bodies
 * are valid ones with one random change (`mutate`), so they get past the first check and into the
 * deeper ones; versions and mapping ids follow what the answers so far showed, so writes keep
 * succeeding all through the run. What a 2xx answers keeps the rules (times of day, transit days,
 * regions, calendar dates, credentials shown as their key only), and afterwards every version
 * counts exactly the writes that were answered with a 2xx. Seeded (FUZZ_SEED) so a failure can be
 * replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzRequest, fuzz, fuzzRequests, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import { type System, startSystem } from "../../support/system.ts";

const SECRET = "fuzz-secret-7f3a";
const REQUESTS = 300;
const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Every carrier operation of the gateway; each must be sent (and answered with a 2xx) at least once. */
const OPERATIONS = [
  "GET /api/carriers",
  "POST /api/carriers",
  "GET /api/carriers/{carrierId}",
  "PATCH /api/carriers/{carrierId}",
  "GET /api/carriers/{carrierId}/configuration",
  "PUT /api/carriers/{carrierId}/configuration",
  "GET /api/carriers/{carrierId}/configuration/countryservicemappings",
  "POST /api/carriers/{carrierId}/configuration/countryservicemappings",
  "GET /api/carriers/{carrierId}/configuration/countryservicemappings/{countryServiceMappingId}",
  "PATCH /api/carriers/{carrierId}/configuration/countryservicemappings/{countryServiceMappingId}",
  "DELETE /api/carriers/{carrierId}/configuration/countryservicemappings/{countryServiceMappingId}",
  "GET /api/configurations/transittime",
  "PUT /api/configurations/transittime",
];

let sys: System;
let token: string;
let carrier: any;
let mapping: any;
/** The configuration's version after the setup (created by the mapping write, moved by it). */
let baseVersion: number;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz", { roles: ["ADMIN"] });
  const api = sys.as(token);
  const created = await api("POST", "/api/carriers", {
    key: "CUSTOM_FUZZ",
    name: "Fuzz",
    credentials: { key: "CUSTOM_FUZZ", password: SECRET },
  });
  expect(created.status, created.text).toBe(201);
  carrier = created.body;
  const added = await api("POST", `/api/carriers/${carrier.id}/configuration/countryservicemappings`, {
    carrierConfigurationVersion: 1,
    source: { countryCode: "DE" },
    destinations: [{ countryCode: "DE" }],
    transitTime: { minTransitDays: 1, maxTransitDays: 2 },
  });
  expect(added.status, added.text).toBe(201);
  mapping = added.body;
  baseVersion = (await api("GET", `/api/carriers/${carrier.id}/configuration`)).body.version;
});
afterAll(() => sys?.close());

/** A value nested `depth` levels deep, objects and arrays by turns. */
function deep(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isCalendarDate = (d: unknown) =>
  typeof d === "string" &&
  /^\d{4}-\d{2}-\d{2}$/.test(d) &&
  new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d;

/** What a stored mapping must keep, or what it breaks. */
function mappingFault(m: any): string | undefined {
  if (!isObject(m) || typeof m.id !== "string" || !m.id) return "a mapping without an id";
  const region = (r: any) => isObject(r) && typeof r.countryCode === "string" && r.countryCode.length === 2;
  if (!region(m.source)) return `mapping ${m.id}: source ${JSON.stringify(m.source)}`;
  if (!Array.isArray(m.destinations) || m.destinations.length === 0 || !m.destinations.every(region))
    return `mapping ${m.id}: destinations ${JSON.stringify(m.destinations)?.slice(0, 100)}`;
  if (m.countAsTransitDayBefore !== undefined && !TIME_OF_DAY.test(m.countAsTransitDayBefore))
    return `mapping ${m.id}: countAsTransitDayBefore ${JSON.stringify(m.countAsTransitDayBefore)}`;
  const t = m.transitTime;
  const day = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 365;
  if (
    t !== undefined &&
    !(day(t?.minTransitDays) && day(t?.maxTransitDays) && t.minTransitDays <= t.maxTransitDays)
  )
    return `mapping ${m.id}: transitTime ${JSON.stringify(t)}`;
  if (m.deliveryCosts !== undefined && !(Array.isArray(m.deliveryCosts) && m.deliveryCosts.length <= 1))
    return `mapping ${m.id}: deliveryCosts ${JSON.stringify(m.deliveryCosts)?.slice(0, 100)}`;
  return undefined;
}

/** What a stored configuration must keep, or what it breaks. */
function configurationFault(c: any): string | undefined {
  if (!isObject(c) || typeof c.returnLabel !== "boolean") return "a configuration without returnLabel";
  if (!Array.isArray(c.countryServiceMappings) || c.countryServiceMappings.length > 100)
    return "countryServiceMappings missing or over 100";
  const ids = c.countryServiceMappings.map((m: any) => m?.id);
  if (new Set(ids).size !== ids.length) return `mapping ids twice: ${JSON.stringify(ids).slice(0, 200)}`;
  for (const m of c.countryServiceMappings) {
    const fault = mappingFault(m);
    if (fault) return fault;
  }
  for (const entry of c.nonDeliveryDaysPerCountryAndProvince ?? []) {
    const days = [
      ...(entry?.nonDeliveryDays ?? []),
      ...(entry?.nonDeliveryDaysPerProvince ?? []).flatMap((p: any) => p?.nonDeliveryDays ?? []),
    ];
    const bad = days.find((d: any) => !isCalendarDate(d?.nonDeliveryDay));
    if (bad) return `nonDeliveryDay ${JSON.stringify(bad.nonDeliveryDay)} is no calendar date`;
  }
  const p = c.defaultPickUpTime;
  if (p !== undefined) {
    const minute = (t: any) =>
      Number.isInteger(t?.hour) &&
      t.hour >= 0 &&
      t.hour <= 23 &&
      Number.isInteger(t?.minute) &&
      t.minute >= 0 &&
      t.minute <= 59
        ? t.hour * 60 + t.minute
        : Number.NaN;
    if (!(minute(p?.start) <= minute(p?.end))) return `defaultPickUpTime ${JSON.stringify(p)}`;
  }
  return undefined;
}

/** What a carrier as shown must keep, or what it breaks. */
function carrierFault(c: any): string | undefined {
  if (!isObject(c) || typeof c.id !== "string") return "a carrier without an id";
  if (
    c.credentials !== undefined &&
    !(isObject(c.credentials) && Object.keys(c.credentials).join() === "key")
  )
    return `carrier ${c.id} shows credentials ${JSON.stringify(Object.keys(c.credentials ?? {}))}`;
  for (const f of ["defaultParcelHeightInCm", "defaultParcelLengthInCm", "defaultParcelWidthInCm"]) {
    if (!(typeof c[f] === "number" && c[f] >= 1)) return `carrier ${c.id}: ${f} ${JSON.stringify(c[f])}`;
  }
  return undefined;
}

describe(`fuzzing the carrier routes (seed ${SEED})`, () => {
  it(`${REQUESTS} malformed requests: no 5xx, no secret, 2xx answers keep the rules, versions count the writes`, async () => {
    const ourId: string = carrier.id;
    /** 2xx writes seen so far: of the carrier, of its configuration (mappings included), of the transit time. */
    const writes = { carrier: 0, configuration: 0, transitTime: 0 };
    /** The carrier's mapping ids as the last answers showed them. */
    const mappingIds = new Set<string>([mapping.id]);
    const sent = new Set<string>();
    const succeeded = new Set<string>();

    const f = fuzz([
      ourId,
      ourId.toUpperCase(),
      mapping.id,
      "24:30",
      "23:60",
      "１２:００",
      "12:00\n",
      "🇩🇪",
      "ÄÖ",
      2 ** 53 + 2,
      -1e308,
      1.5,
      "1",
      `urn:fft:carrier:id:${ourId}`,
      { key: "GLS", password: SECRET },
      deep(64),
      deep(1200),
    ]);
    const { r, int, pick, weird, mutate } = f;
    const mappingId = () => (mappingIds.size > 0 ? pick([...mappingIds]) : mapping.id);
    const idLike = () =>
      pick([
        ourId,
        ourId.toUpperCase(),
        mappingId(),
        UNKNOWN,
        "x",
        "urn:fft:carrier:key:CUSTOM_FUZZ",
        `urn:fft:carrier:id:${ourId}`,
        `${ourId} `,
        `${ourId}\u0000`,
        "../configurations/transittime",
        String(weird()),
      ]);
    const seg = (v: unknown) => encodeURIComponent(String(v));
    const carrierPath = () =>
      `/api/carriers/${seg(pick([ourId, ourId, ourId, ourId.toUpperCase(), idLike()]))}`;
    const mappings = () => `${carrierPath()}/configuration/countryservicemappings`;
    const mappingPath = () => `${mappings()}/${seg(pick([mappingId(), mappingId(), idLike()]))}`;
    /** Usually `valid`; now and then one of `others` (values that break a rule of their own). */
    const mostly = <T>(valid: T, others: readonly T[]): T => (r() < 0.9 ? valid : pick(others));
    /** Mostly the version the writes so far lead to, sometimes a stale or future one. */
    const near = (v: number) => mostly(v, [v - 1, v + 1, int(6)]);
    const configVersion = () => near(baseVersion + writes.configuration);
    const time = () =>
      mostly(pick(["12:00", "00:00", "23:59", "09:30"]), [
        "24:00",
        "24:30",
        "7:00",
        "12:60",
        "12:00:00",
        "１２:００",
        "12:00\n",
        "",
        weird(),
      ]);
    const region = () => ({
      countryCode: mostly(pick(["DE", "AT", "FR", "PL"]), ["de", "DEU", "", "🇩🇪", "ÄÖ", "D"]),
      postalCodes: mostly(pick([undefined, ["1"], []]), [["x".repeat(40)], [""], ["1", null]]),
    });
    const transitTime = () =>
      mostly({ minTransitDays: int(4), maxTransitDays: 3 + int(3) }, [
        { minTransitDays: 5, maxTransitDays: 1 },
        { minTransitDays: 0, maxTransitDays: 365 },
        { minTransitDays: 0, maxTransitDays: 366 },
        { minTransitDays: 1.5, maxTransitDays: 2 },
        { minTransitDays: -1, maxTransitDays: 2 },
      ]);
    const mappingBody = () => ({
      id: mostly(pick([mappingId(), `m-${int(1000)}`]), [
        undefined,
        "",
        "x".repeat(300),
        "💥\u0000",
        "💥\u202e",
      ]),
      source: region(),
      destinations: [region(), ...(r() < 0.3 ? [region()] : [])],
      countAsTransitDayBefore: time(),
      transitTime: transitTime(),
    });
    const day = () =>
      mostly(pick(["2026-12-25", "2026-01-01T00:00:00Z", "2028-02-29"]), [
        "2026-02-30",
        "2027-02-29",
        "2026-12-25T99:99",
        "99999-01-01",
        "0000-00-00",
        "x",
      ]);
    const query = () =>
      `${pick(["size", "startAfterId", "__proto__", "carrierId"])}=${seg(
        pick([weird(), ourId, ourId.toUpperCase(), "0", "501", "-1", "1e3", "2.5", ""]),
      )}`;

    function one(): FuzzRequest {
      switch (int(13)) {
        case 0:
          return {
            method: "POST",
            path: "/api/carriers",
            body: mutate({
              key: mostly(pick(["GLS", "UPS", `CUSTOM_${int(1e6)}`]), [
                "CUSTOM_",
                "custom_x",
                "CUSTOM_Ü",
                "FOO",
                "CUSTOM_FUZZ",
                `CUSTOM_${"x".repeat(130)}`,
              ]),
              name: mostly(pick(["C", "Ü💥"]), ["", "x".repeat(257)]),
              credentials: { key: "GLS", password: SECRET, nested: { token: SECRET } },
              defaultParcelWidthInCm: mostly(pick([1, 35]), [0, 1e308, -1]),
              status: mostly(pick([undefined, "ACTIVE", "INACTIVE"]), ["DEAD", "active"]),
            }),
          };
        case 1:
          return {
            method: "PATCH",
            path: carrierPath(),
            body: mutate({
              version: near(1 + writes.carrier),
              actions: [
                {
                  action: mostly("ModifyCarrier", ["ModifyFacility", "modifyCarrier"]),
                  name: "N",
                  status: mostly(pick(["ACTIVE", "INACTIVE"]), ["DEAD"]),
                  credentials: { key: pick(["CUSTOM_FUZZ", "GLS"]), password: SECRET },
                  defaultParcelWeightInGram: mostly(pick([1, 500]), [0, 1e10]),
                },
              ],
            }),
          };
        case 2:
          return { method: "GET", path: `${pick(["/api/carriers", carrierPath()])}?${query()}` };
        case 3:
        case 4:
          return {
            method: "PUT",
            path: `${carrierPath()}/configuration`,
            body: mutate({
              version: configVersion(),
              carrierRef: mostly(ourId, [ourId.toUpperCase(), idLike()]),
              returnLabel: pick([true, false]),
              defaultPickUpTime: {
                start: { hour: mostly(int(12), [24, 13, -1]), minute: mostly(pick([0, 30, 59]), [60]) },
                end: { hour: mostly(pick([12, 23]), [24]), minute: 0 },
              },
              nonDeliveryDaysPerCountryAndProvince: [
                {
                  country: "DE",
                  nonDeliveryDays: [
                    { nonDeliveryDay: day(), nonDeliveryType: mostly(pick(["SINGLE", "RECURRING"]), ["X"]) },
                  ],
                  recurringNonDeliveryWeekdays: [mostly("SUNDAY", ["FUNDAY", "sunday"])],
                  nonDeliveryDaysPerProvince: [
                    {
                      province: "NW",
                      nonDeliveryDays: [{ nonDeliveryDay: day() }],
                      recurringNonDeliveryWeekdays: [],
                    },
                  ],
                },
              ],
              countryServiceMappings: Array.from({ length: int(3) }, mappingBody),
              thresholdPriceValue: {
                priority: 1,
                priceRange: { from: int(3), to: int(3) + 1, currency: "EUR", decimalPlaces: 2 },
              },
            }),
          };
        case 5:
        case 6:
          return {
            method: "POST",
            path: mappings(),
            body: mutate({
              carrierConfigurationVersion: configVersion(),
              source: region(),
              destinations: [region(), region()],
              sourceCountry: mostly(pick([undefined, "AT"]), ["X"]),
              destinationCountries: mostly(pick([undefined, ["CH"]]), [[], ["CHE"]]),
              countAsTransitDayBefore: time(),
              transitTime: transitTime(),
              deliveryCosts: mostly(
                [{ cost: 1.5, currency: "EUR" }],
                [
                  [],
                  [{ cost: 1e308, currency: "EURO" }],
                  [
                    { cost: 1, currency: "EUR" },
                    { cost: 2, currency: "EUR" },
                  ],
                ],
              ),
              carrierProductCategory: mostly(pick([undefined, "STANDARD"]), ["NOPE"]),
            }),
          };
        case 7:
          return {
            method: "PATCH",
            path: mappingPath(),
            body: mutate({
              carrierConfigurationVersion: configVersion(),
              countAsTransitDayBefore: time(),
              products: ["P"],
              transitTime: mostly(pick([undefined, transitTime()]), [null]),
              destinations: mostly(pick([undefined, [region()]]), [null, []]),
            }),
          };
        case 8:
          return { method: pick(["GET", "GET", "DELETE"]), path: mappingPath() };
        case 9:
          return {
            method: "PUT",
            path: "/api/configurations/transittime",
            body: mutate({
              version: near(writes.transitTime),
              calculationStrategy: mostly(pick(["EARLIEST", "LATEST"]), ["FASTEST", "earliest"]),
            }),
          };
        case 10:
          return {
            method: "GET",
            path: `${pick([mappings(), `${carrierPath()}/configuration`, "/api/configurations/transittime"])}${pick(["", `?${query()}`])}`,
          };
        case 11:
          // Methods the routes do not have.
          return {
            method: pick(["DELETE", "PUT", "POST", "PATCH"]),
            path: pick([
              "/api/carriers",
              carrierPath(),
              `${carrierPath()}/configuration`,
              mappings(),
              "/api/configurations/transittime",
            ]),
            body: { version: 1 },
          };
        default:
          return {
            method: pick(["POST", "PATCH", "PUT"]),
            path: pick([
              "/api/carriers",
              carrierPath(),
              `${carrierPath()}/configuration`,
              mappings(),
              mappingPath(),
              "/api/configurations/transittime",
            ]),
            body: pick(["{", "[1,2", "null", '"str"', "1e999", '{"version":}', "\u0000", "[]"]),
            headers: { "content-type": pick(["application/json", "text/plain", ""]) },
          };
      }
    }

    /** The operation a request names (OpenAPI path), or undefined for a path no route has. */
    const operationOf = (method: string, parts: string[]): string | undefined => {
      // An empty id ("/api/carriers/") may be routed elsewhere: no operation to judge it by.
      if (parts.slice(3).some((p) => p === "")) return undefined;
      const shape = parts
        .map((p, i) =>
          i === 3 && parts[2] === "carriers" ? "{carrierId}" : i === 6 ? "{countryServiceMappingId}" : p,
        )
        .join("/");
      const op = `${method} ${shape}`;
      return OPERATIONS.includes(op) ? op : undefined;
    };
    const decode = (s: string | undefined) => {
      try {
        return decodeURIComponent(s ?? "");
      } catch {
        return s ?? "";
      }
    };

    /** Keeps the counts and what the fuzz knows, and finds fault with a wrong answer. */
    const judge = (
      res: { status: number; text: string; body: any },
      req: FuzzRequest,
    ): string | undefined => {
      if (res.text.includes(SECRET)) return "shows a credential secret";
      const parts = req.path.split("?")[0]!.split("/");
      const op = operationOf(req.method, parts);
      if (op) sent.add(op);
      if (res.status < 200 || res.status >= 300 || !op) return undefined;
      succeeded.add(op);
      const ours = parts[2] === "carriers" && decode(parts[3]).toLowerCase() === ourId;
      const b = res.body;
      const kind = op.split(" ")[1]!.split("/").length;
      switch (op) {
        case "GET /api/configurations/transittime":
        case "PUT /api/configurations/transittime":
          if (req.method === "PUT") writes.transitTime++;
          if (b?.version !== writes.transitTime)
            return `transit time version ${b?.version} after ${writes.transitTime} writes`;
          if (!["EARLIEST", "LATEST"].includes(b.calculationStrategy))
            return `calculationStrategy ${JSON.stringify(b.calculationStrategy)}`;
          return undefined;
        case "GET /api/carriers":
          if (!Array.isArray(b?.carriers) || typeof b.total !== "number") return "no StrippedCarriers";
          if (b.carriers.some((c: any) => "credentials" in c)) return "a stripped carrier shows credentials";
          return undefined;
        case "POST /api/carriers":
          return carrierFault(b) ?? (b.version === 1 ? undefined : `a new carrier at version ${b.version}`);
        case "GET /api/carriers/{carrierId}":
        case "PATCH /api/carriers/{carrierId}":
          if (ours && req.method === "PATCH") writes.carrier++;
          if (ours && (b?.id !== ourId || b.version !== 1 + writes.carrier))
            return `carrier ${b?.id} at version ${b?.version} after ${writes.carrier} writes`;
          return carrierFault(b);
        default:
          break;
      }
      // The configuration and its mappings: the carrier's every 2xx write moves the version by one.
      if (!ours) return "a 2xx for another carrier's configuration";
      if (req.method !== "GET") writes.configuration++;
      const version = baseVersion + writes.configuration;
      if (kind === 5) {
        if (b?.carrierRef !== ourId || b.version !== version || b.id === undefined)
          return `configuration of ${b?.carrierRef} at version ${b?.version}, expected ${version}`;
        mappingIds.clear();
        for (const m of b.countryServiceMappings ?? []) mappingIds.add(m.id);
        return configurationFault(b);
      }
      if (kind === 6) {
        if (req.method === "GET") {
          if (!Array.isArray(b)) return "no list of mappings";
          mappingIds.clear();
          for (const m of b) mappingIds.add(m?.id);
          for (const m of b) {
            const fault = mappingFault(m);
            if (fault) return fault;
          }
          return undefined;
        }
        mappingIds.add(b?.id);
        return mappingFault(b);
      }
      const id = decode(parts[6]);
      if (req.method === "DELETE") {
        mappingIds.delete(id);
        return undefined;
      }
      if (b?.id !== id) return `mapping ${b?.id} answered for ${id}`;
      return mappingFault(b);
    };

    const check = (res: { status: number; text: string; body: any }, req: FuzzRequest) => {
      const fault = judge(res, req);
      return fault && `${fault}; request body ${JSON.stringify(req.body)?.slice(0, 300)}`;
    };
    const classes = await fuzzRequests(sys, token, f, REQUESTS, one, check);
    console.log(
      `seed ${SEED}: ${JSON.stringify(classes)}; 2xx writes: ${JSON.stringify(writes)}; no 2xx for: ${JSON.stringify(OPERATIONS.filter((o) => !succeeded.has(o)))}`,
    );
    expect(classes["2xx"] ?? 0, `seed ${SEED}`).toBeGreaterThan(5);
    expect([...sent].sort(), `seed ${SEED}: operations sent`).toEqual([...OPERATIONS].sort());

    // Afterwards every version counts exactly the writes answered with a 2xx.
    const api = sys.as(token);
    const config = await api("GET", `/api/carriers/${ourId}/configuration`);
    expect(config.status, config.text).toBe(200);
    expect(config.body.version, `seed ${SEED}`).toBe(baseVersion + writes.configuration);
    expect(new Set(config.body.countryServiceMappings.map((m: any) => m.id))).toEqual(mappingIds);
    expect(configurationFault(config.body)).toBeUndefined();
    const read = await api("GET", `/api/carriers/${ourId}`);
    expect(read.body.version, `seed ${SEED}`).toBe(1 + writes.carrier);
    const transit = await api("GET", "/api/configurations/transittime");
    if (writes.transitTime === 0) expect(transit.status, transit.text).toBe(404);
    else expect(transit.body.version, `seed ${SEED}`).toBe(writes.transitTime);

    // The system still works: one more write on the version it shows moves it by exactly one.
    const added = await api("POST", `/api/carriers/${ourId}/configuration/countryservicemappings`, {
      carrierConfigurationVersion: config.body.version,
      source: { countryCode: "DE" },
      destinations: [{ countryCode: "PL" }],
    });
    expect(added.status, added.text).toBe(201);
    const after = (await api("GET", `/api/carriers/${ourId}/configuration`)).body;
    expect(after.version).toBe(config.body.version + 1);
    expect(after.countryServiceMappings.map((m: any) => m.id)).toContain(added.body.id);
    for (const path of [`/api/carriers/${ourId}`, "/api/carriers?size=500"]) {
      expect((await api("GET", path)).text).not.toContain(SECRET);
    }
  });
});
