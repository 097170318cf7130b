/**
 * POST /api/pickjobs/search against an oracle kept in the test over 220 pick jobs (every job as the
 * API returned it on creation or on its last action): every query field and operator of the spec,
 * and/or, every sort field in both directions with cursor paging forward and backward (no gaps, no
 * duplicates, nulls last ASC / first DESC, ties by id), withTotal, the 400s, tenancy, and every
 * response checked against the reference's PickJobPaginatedResult.
 *
 * Semantics asserted (as services/kit/src/search/query.ts and picking's pickjob-search.ts document
 * them): `notEq`/`notIn` also match jobs where the value is absent (IS DISTINCT FROM); a list
 * filter's `contains: {eq}` / `{in}` match when some element matches, `contains: {notEq}` when no
 * element equals the value; `transfers.contains.id` matches when at least one transfer matches;
 * `transfers.exists: false` matches jobs with no (or an empty list of) transfers; `id` values that
 * are no ids match nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { type System, startSystem } from "../../support/system.ts";

if (referenceMissing) console.warn(referenceMissing);

const N = 220;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const pad = (i: number) => String(i).padStart(3, "0");
let sys: System;
let api: ReturnType<System["as"]>;
let facilities: string[];
/** The oracle: every job as the API last returned it. */
let all: any[];
/** Target times are whole hours around t0 plus 30 minutes: far from any `now ± duration` boundary. */
let t0: number;
const METHODS = ["SINGLE_ORDER", "MULTI_ORDER", "BATCH"] as const;

function body(i: number) {
  const shipping = i % 4 !== 0;
  const transfers =
    i % 7 === 0
      ? [{ id: `TR-${i % 3}`, type: "RECEIVER" }, ...(i % 21 === 0 ? [{ id: "TR-9", type: "SUPPLIER" }] : [])]
      : i % 7 === 3
        ? []
        : undefined;
  const methods =
    i % 12 === 0
      ? undefined
      : i % 12 === 6
        ? []
        : [METHODS[i % 3]!, ...(i % 5 === 0 ? ["BATCH_PICKING" as const] : [])];
  return {
    facilityRef: facilities[Math.floor(i / 3) % 2],
    orderDate: new Date(t0 - i * MINUTE).toISOString(),
    // Duplicates (ties for the sort) and some jobs without.
    ...(i % 10 !== 0 ? { tenantOrderId: `T-${pad((i * 37) % 150)}` } : {}),
    ...(i % 3 !== 0 ? { orderRef: `O-${i % 5}` } : {}),
    ...(methods ? { preferredPickingMethods: methods } : {}),
    ...(transfers ? { transfers } : {}),
    deliveryinformation: {
      channel: shipping ? "SHIPPING" : "COLLECT",
      // 97 distinct hours over 198 jobs (ties), from two days ago to two days ahead; some without.
      ...(i % 9 !== 0
        ? { targetTime: new Date(t0 + (((i * 7919) % 97) - 48) * HOUR + 30 * MINUTE).toISOString() }
        : {}),
      ...(shipping
        ? {
            details: {
              shipping: {
                recipientaddress: {
                  ...facilityAddress,
                  firstName: ["Ada", "Grace", "Alan"][i % 3],
                  lastName: `Lee${i % 11}`,
                },
              },
            },
          }
        : {}),
    },
    pickLineItems: [
      { article: { tenantArticleId: `ART-${i % 8}`, title: "A" }, quantity: 1 },
      ...(i % 2 === 0 ? [{ article: { tenantArticleId: "COMMON", title: "C" }, quantity: 2 }] : []),
    ],
  };
}

/** The consumer name a job is searched by: recipient's "firstName lastName" (none for these COLLECT jobs). */
const name = (j: any): string | null => {
  const a = j.deliveryinformation.details?.shipping?.recipientaddress;
  return a ? `${a.firstName} ${a.lastName}` : null;
};
const targetTime = (j: any): string | null => j.deliveryinformation.targetTime ?? null;
const articles = (j: any): string[] => j.pickLineItems.map((l: any) => l.article.tenantArticleId);
const transferIds = (j: any): string[] => (j.transfers ?? []).map((t: any) => t.id);

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("searcher"));
  t0 = Math.floor(Date.now() / MINUTE) * MINUTE;
  facilities = [];
  for (const n of ["F1", "F2"]) {
    const res = await api("POST", "/api/facilities", { name: n, address: facilityAddress });
    expect(res.status, res.text).toBe(201);
    facilities.push(res.body.id);
  }
  all = [];
  for (let start = 0; start < N; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, N - start) }, async (_, k) => {
        const res = await api("POST", "/api/pickjobs", body(start + k));
        expect(res.status, res.text).toBe(201);
        return res.body;
      }),
    );
    all.push(...batch);
  }
  // Statuses (and lastModified): start some, cancel others; the oracle keeps what the API returned.
  for (let start = 0; start < N; start += 20) {
    await Promise.all(
      all.slice(start, start + 20).map(async (j: any, k: number) => {
        const i = start + k;
        const action = i % 3 === 1 ? "START" : i % 5 === 2 ? "CANCEL" : undefined;
        if (!action) return;
        const res = await api("POST", `/api/pickjobs/${j.id}/actions`, { name: action, version: 1 });
        expect(res.status, res.text).toBe(200);
        all[i] = res.body;
      }),
    );
  }
  expect(new Set(all.map((j) => j.id)).size).toBe(N);
}, 120_000);
afterAll(() => sys?.close());

type Page = {
  pickJobs: any[];
  pageInfo: { startCursor: string; endCursor: string; hasNextPage: boolean; hasPreviousPage: boolean };
  total?: number;
};

/** One search; anything but 200 fails, and every result is checked against the reference schema. */
async function search(b: Record<string, unknown>): Promise<Page> {
  const res = await api("POST", "/api/pickjobs/search", b);
  if (res.status !== 200) throw new Error(`search ${JSON.stringify(b)} -> ${res.status} ${res.text}`);
  if (!referenceMissing) {
    expect(referenceErrors("PickJobPaginatedResult", res.body), JSON.stringify(b)).toEqual([]);
  }
  return res.body as Page;
}

/** Every match of `query` (ids, sorted), following cursors forward. */
async function searchAll(query: unknown): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 20; guard++) {
    const page = await search({ query, size: 100, ...(after ? { after } : {}) });
    out.push(...page.pickJobs.map((j) => j.id));
    if (!page.pageInfo.hasNextPage) return out.sort();
    after = page.pageInfo.endCursor;
  }
  throw new Error("too many pages");
}

const where = (pred: (j: any) => boolean) =>
  all
    .filter(pred)
    .map((j) => j.id)
    .sort();
const at = (iso: string) => Date.parse(iso);

/** A value of `get` that jobs really have (the median), so eq/gt/gte/lt/lte all select something. */
const pivots = new Map<(j: any) => string | null, string>();
const lows = new Map<(j: any) => string | null, string>();
function pivot(get: (j: any) => string | null): string {
  if (!pivots.has(get)) {
    const values = all
      .map(get)
      .filter((v): v is string => v !== null)
      .sort((a, b) => at(a) - at(b));
    pivots.set(get, values[Math.floor(values.length / 2)]!);
  }
  return pivots.get(get)!;
}

const DURATIONS: Record<string, number> = {
  "-P1D": -DAY,
  P1D: DAY,
  "-PT12H": -12 * HOUR,
  PT12H: 12 * HOUR,
  PT0S: 0,
  "-PT1H": -HOUR,
  PT1H: HOUR,
};
/** `now` shifted by a duration, evaluated when the search runs (boundaries are ≥ 29 min from any value). */
const shifted = (d: string) => Date.now() + DURATIONS[d]!;

type Case = [label: string, query: () => unknown, pred: (j: any) => boolean];

const DATE_FIELDS: [string, (j: any) => string | null][] = [
  ["created", (j) => j.created],
  ["lastModified", (j) => j.lastModified],
  ["targetTime", targetTime],
];
const COMPARE: Record<string, (v: number, p: number) => boolean> = {
  eq: (v, p) => v === p,
  gt: (v, p) => v > p,
  gte: (v, p) => v >= p,
  lt: (v, p) => v < p,
  lte: (v, p) => v <= p,
};

function dateCases(): Case[] {
  const out: Case[] = [];
  for (const [field, get] of DATE_FIELDS) {
    for (const [op, cmp] of Object.entries(COMPARE)) {
      out.push([
        `${field} ${op}`,
        () => ({ [field]: { [op]: pivot(get) } }),
        (j) => get(j) !== null && cmp(at(get(j)!), at(pivot(get))),
      ]);
    }
    out.push([
      `${field} notEq (absent values match too)`,
      () => ({ [field]: { notEq: pivot(get) } }),
      (j) => get(j) === null || at(get(j)!) !== at(pivot(get)),
    ]);
    // From the 21st smallest distinct value (exclusive) to the median (inclusive).
    const low = (): string => {
      if (!lows.has(get)) {
        lows.set(get, [...new Set(all.map(get).filter((v): v is string => v !== null))].sort()[20]!);
      }
      return lows.get(get)!;
    };
    out.push([
      `${field} gt + lte (a range)`,
      () => ({ [field]: { gt: low(), lte: pivot(get) } }),
      (j) => get(j) !== null && at(get(j)!) > at(low()) && at(get(j)!) <= at(pivot(get)),
    ]);
  }
  const relative: [string, string, Record<string, string>][] = [
    ["targetTime", "after a future duration", { after: "PT12H" }],
    ["targetTime", "before a past duration", { before: "-P1D" }],
    ["targetTime", "between -P1D and P1D", { after: "-P1D", before: "P1D" }],
    ["targetTime", "before now (PT0S)", { before: "PT0S" }],
    ["targetTime", "after -PT12H", { after: "-PT12H" }],
    ["created", "after -PT1H (every job: all were created just now)", { after: "-PT1H" }],
    ["created", "before -PT1H (none)", { before: "-PT1H" }],
    ["created", "between -P1D and P1D (every job)", { after: "-P1D", before: "P1D" }],
    ["lastModified", "before PT1H (every job)", { before: "PT1H" }],
    ["lastModified", "after P1D (none)", { after: "P1D" }],
  ];
  for (const [field, label, filter] of relative) {
    const get = DATE_FIELDS.find(([f]) => f === field)![1];
    out.push([
      `${field} ${label}`,
      () => ({ [field]: filter }),
      (j) => {
        const v = get(j);
        if (v === null) return false;
        if (filter.after && !(at(v) > shifted(filter.after))) return false;
        if (filter.before && !(at(v) < shifted(filter.before))) return false;
        return true;
      },
    ]);
  }
  return out;
}

const some = () => all[5];
const cases: Case[] = [
  ["id eq", () => ({ id: { eq: some().id } }), (j) => j.id === some().id],
  ["id eq that is no id (none)", () => ({ id: { eq: "garbage" } }), () => false],
  ["id notEq", () => ({ id: { notEq: some().id } }), (j) => j.id !== some().id],
  [
    "id in (a value that is no id matches nothing)",
    () => ({ id: { in: [all[1].id, all[2].id, "garbage"] } }),
    (j) => [all[1].id, all[2].id].includes(j.id),
  ],
  [
    "id notIn",
    () => ({ id: { notIn: [all[1].id, all[2].id] } }),
    (j) => ![all[1].id, all[2].id].includes(j.id),
  ],
  ["orderRef eq", () => ({ orderRef: { eq: "O-2" } }), (j) => j.orderRef === "O-2"],
  [
    "orderRef notEq (jobs without orderRef match too)",
    () => ({ orderRef: { notEq: "O-2" } }),
    (j) => j.orderRef !== "O-2",
  ],
  ["facilityRef eq", () => ({ facilityRef: { eq: facilities[1] } }), (j) => j.facilityRef === facilities[1]],
  [
    "facilityRef notEq",
    () => ({ facilityRef: { notEq: facilities[1] } }),
    (j) => j.facilityRef !== facilities[1],
  ],
  ["tenantOrderId eq", () => ({ tenantOrderId: { eq: "T-037" } }), (j) => j.tenantOrderId === "T-037"],
  [
    "tenantOrderId notEq (jobs without tenantOrderId match too)",
    () => ({ tenantOrderId: { notEq: "T-037" } }),
    (j) => j.tenantOrderId !== "T-037",
  ],
  [
    "tenantOrderId in",
    () => ({ tenantOrderId: { in: ["T-037", "T-074", "T-999"] } }),
    (j) => ["T-037", "T-074"].includes(j.tenantOrderId),
  ],
  [
    "tenantOrderId notIn (jobs without tenantOrderId match too)",
    () => ({ tenantOrderId: { notIn: ["T-037", "T-074"] } }),
    (j) => !["T-037", "T-074"].includes(j.tenantOrderId),
  ],
  ["consumerName eq", () => ({ consumerName: { eq: "Ada Lee3" } }), (j) => name(j) === "Ada Lee3"],
  [
    "consumerName notEq (jobs without consumer match too)",
    () => ({ consumerName: { notEq: "Ada Lee3" } }),
    (j) => name(j) !== "Ada Lee3",
  ],
  [
    "consumerName in",
    () => ({ consumerName: { in: ["Ada Lee3", "Alan Lee5", "Nobody"] } }),
    (j) => ["Ada Lee3", "Alan Lee5"].includes(name(j) ?? ""),
  ],
  [
    "consumerName notIn (jobs without consumer match too)",
    () => ({ consumerName: { notIn: ["Ada Lee3", "Alan Lee5"] } }),
    (j) => !["Ada Lee3", "Alan Lee5"].includes(name(j) ?? ""),
  ],
  [
    "consumerName like (regex)",
    () => ({ consumerName: { like: "^Gr.* Lee1[0-9]?$" } }),
    (j) => name(j) !== null && /^Gr.* Lee1[0-9]?$/.test(name(j)!),
  ],
  [
    "consumerName like (unanchored, case-sensitive)",
    () => ({ consumerName: { like: "an Lee" } }),
    (j) => name(j) !== null && /an Lee/.test(name(j)!),
  ],
  ["status eq", () => ({ status: { eq: "IN_PROGRESS" } }), (j) => j.status === "IN_PROGRESS"],
  ["status notEq", () => ({ status: { notEq: "OPEN" } }), (j) => j.status !== "OPEN"],
  [
    "status in",
    () => ({ status: { in: ["CANCELED", "IN_PROGRESS"] } }),
    (j) => ["CANCELED", "IN_PROGRESS"].includes(j.status),
  ],
  [
    "preferredPickingMethods contains eq",
    () => ({ preferredPickingMethods: { contains: { eq: "BATCH" } } }),
    (j) => (j.preferredPickingMethods ?? []).includes("BATCH"),
  ],
  [
    "preferredPickingMethods contains in",
    () => ({ preferredPickingMethods: { contains: { in: ["MULTI_ORDER", "BATCH_PICKING"] } } }),
    (j) =>
      (j.preferredPickingMethods ?? []).some((m: string) => ["MULTI_ORDER", "BATCH_PICKING"].includes(m)),
  ],
  [
    "preferredPickingMethods contains notEq (no element equals; empty and absent lists match)",
    () => ({ preferredPickingMethods: { contains: { notEq: "SINGLE_ORDER" } } }),
    (j) => !(j.preferredPickingMethods ?? []).includes("SINGLE_ORDER"),
  ],
  [
    "tenantArticleIds contains eq",
    () => ({ tenantArticleIds: { contains: { eq: "COMMON" } } }),
    (j) => articles(j).includes("COMMON"),
  ],
  [
    "tenantArticleIds contains notEq (no element equals)",
    () => ({ tenantArticleIds: { contains: { notEq: "ART-3" } } }),
    (j) => !articles(j).includes("ART-3"),
  ],
  [
    "transfers contains id eq",
    () => ({ transfers: { contains: { id: { eq: "TR-1" } } } }),
    (j) => transferIds(j).includes("TR-1"),
  ],
  [
    "transfers contains id eq (the second transfer of a job)",
    () => ({ transfers: { contains: { id: { eq: "TR-9" } } } }),
    (j) => transferIds(j).includes("TR-9"),
  ],
  [
    "transfers contains id notEq (some transfer differs)",
    () => ({ transfers: { contains: { id: { notEq: "TR-0" } } } }),
    (j) => transferIds(j).some((t) => t !== "TR-0"),
  ],
  ["transfers exists true", () => ({ transfers: { exists: true } }), (j) => transferIds(j).length > 0],
  [
    "transfers exists false (empty and absent lists)",
    () => ({ transfers: { exists: false } }),
    (j) => transferIds(j).length === 0,
  ],
  ...dateCases(),
  [
    "the scanner's work list: facility + statuses",
    () => ({ and: [{ facilityRef: { eq: facilities[0] } }, { status: { in: ["OPEN", "IN_PROGRESS"] } }] }),
    (j) => j.facilityRef === facilities[0] && ["OPEN", "IN_PROGRESS"].includes(j.status),
  ],
  [
    "fields side by side are and-ed",
    () => ({
      orderRef: { eq: "O-1" },
      status: { eq: "OPEN" },
      tenantArticleIds: { contains: { eq: "COMMON" } },
    }),
    (j) => j.orderRef === "O-1" && j.status === "OPEN" && articles(j).includes("COMMON"),
  ],
  [
    "or of and",
    () => ({
      or: [
        { and: [{ status: { eq: "CANCELED" } }, { orderRef: { eq: "O-1" } }] },
        { transfers: { contains: { id: { eq: "TR-0" } } } },
      ],
    }),
    (j) => (j.status === "CANCELED" && j.orderRef === "O-1") || transferIds(j).includes("TR-0"),
  ],
  [
    "and of or, next to a field",
    () => ({
      facilityRef: { eq: facilities[1] },
      and: [
        { or: [{ consumerName: { like: "^Ada" } }, { tenantOrderId: { in: ["T-001", "T-002", "T-003"] } }] },
        { or: [{ targetTime: { lt: new Date(t0).toISOString() } }, { transfers: { exists: true } }] },
      ],
    }),
    (j) =>
      j.facilityRef === facilities[1] &&
      (/^Ada/.test(name(j) ?? "") || ["T-001", "T-002", "T-003"].includes(j.tenantOrderId)) &&
      ((targetTime(j) !== null && at(targetTime(j)!) < t0) || transferIds(j).length > 0),
  ],
];

/** Labels whose case selects every job or none on purpose. */
const TRIVIAL = /every job|\(none\)/;

describe("query fields and operators", () => {
  it.each(cases)("%s", async (_, query, pred) => {
    expect(await searchAll(query())).toEqual(where(pred));
  });

  it("every case selects something and leaves something out, unless it says so (the oracle is not trivial)", () => {
    const trivial = cases
      .filter(([label]) => !TRIVIAL.test(label))
      .filter(([, , pred]) => {
        const n = all.filter(pred).length;
        return n === 0 || n === all.length;
      })
      .map(([label]) => label);
    expect(trivial).toEqual([]);
    // The data has what the null semantics are about.
    expect(all.some((j) => j.tenantOrderId === undefined)).toBe(true);
    expect(all.some((j) => name(j) === null)).toBe(true);
    expect(all.some((j) => targetTime(j) === null)).toBe(true);
    expect(all.some((j) => j.orderRef === undefined)).toBe(true);
    expect(all.some((j) => j.preferredPickingMethods === undefined)).toBe(true);
    expect(
      all.some((j) => Array.isArray(j.preferredPickingMethods) && j.preferredPickingMethods.length === 0),
    ).toBe(true);
  });

  it("withTotal fills total (all matches, on every page), and only then", async () => {
    const query = { status: { eq: "OPEN" } };
    const expected = all.filter((j) => j.status === "OPEN").length;
    const page = await search({ query, size: 3, options: { withTotal: true } });
    expect(page.total).toBe(expected);
    expect(page.pickJobs).toHaveLength(3);
    const next = await search({
      query,
      size: 3,
      after: page.pageInfo.endCursor,
      options: { withTotal: true },
    });
    expect(next.total).toBe(expected);
    expect((await search({ query: {}, size: 1, options: { withTotal: true } })).total).toBe(N);
    const none = await search({ query: { tenantOrderId: { eq: "NONE" } }, options: { withTotal: true } });
    expect(none).toMatchObject({ pickJobs: [], total: 0 });
    expect((await search({ query: {}, size: 1 })).total).toBeUndefined();
    expect("total" in (await search({ query: {}, size: 1, options: { withTotal: false } }))).toBe(false);
  });

  it("returns the jobs as they are (the same document GET returns)", async () => {
    const page = await search({ query: { id: { in: [all[7].id, all[8].id] } } });
    expect(page.pickJobs).toHaveLength(2);
    for (const j of page.pickJobs) {
      expect(j).toEqual(all.find((x) => x.id === j.id));
      expect(j).toEqual((await api("GET", `/api/pickjobs/${j.id}`)).body);
    }
  });

  it("another tenant finds none of these jobs", async () => {
    const other = sys.as(await sys.token("other-searcher"));
    const res = await other("POST", "/api/pickjobs/search", { query: {}, options: { withTotal: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pickJobs: [], total: 0 });
    const byId = await other("POST", "/api/pickjobs/search", {
      query: { id: { in: all.slice(0, 5).map((j) => j.id) } },
    });
    expect(byId.body.pickJobs).toEqual([]);
  });
});

type SortKey = { field: string; value: (j: any) => string | null };
const SORTS: SortKey[] = [
  { field: "created", value: (j) => j.created },
  { field: "lastModified", value: (j) => j.lastModified },
  { field: "targetTime", value: targetTime },
  { field: "tenantOrderId", value: (j) => j.tenantOrderId ?? null },
];

/** Nulls last ascending, first descending; ties by id in the same direction. */
function oracle(s: SortKey, dir: "ASC" | "DESC", subset = all): string[] {
  const sign = dir === "ASC" ? 1 : -1;
  const cmp = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
  return [...subset]
    .sort((x, y) => sign * (cmp(s.value(x), s.value(y)) || (x.id < y.id ? -1 : 1)))
    .map((j) => j.id);
}

/** Pages forward (size) then backward (last) through `query`; checks page sizes and the page flags. */
async function pageBothWays(
  query: unknown,
  sort: unknown[] | undefined,
  n: number,
): Promise<[string[], string[]]> {
  // (`sort: undefined` is left out of the JSON body: the default order.)
  const forward: string[] = [];
  let page = await search({ query, sort, size: n });
  expect(page.pageInfo.hasPreviousPage).toBe(false);
  forward.push(...page.pickJobs.map((j) => j.id));
  for (let guard = 0; page.pageInfo.hasNextPage; guard++) {
    expect(page.pickJobs).toHaveLength(n);
    expect(guard).toBeLessThan(50);
    page = await search({ query, sort, size: n, after: page.pageInfo.endCursor });
    expect(page.pageInfo.hasPreviousPage).toBe(true);
    forward.push(...page.pickJobs.map((j) => j.id));
  }
  expect(page.pickJobs.length).toBeGreaterThan(0);
  expect(page.pickJobs.length).toBeLessThanOrEqual(n);

  const backward: string[] = [];
  page = await search({ query, sort, last: n });
  expect(page.pageInfo.hasNextPage).toBe(false);
  backward.unshift(...page.pickJobs.map((j) => j.id));
  for (let guard = 0; page.pageInfo.hasPreviousPage; guard++) {
    expect(page.pickJobs).toHaveLength(n);
    expect(guard).toBeLessThan(50);
    page = await search({ query, sort, last: n, before: page.pageInfo.startCursor });
    expect(page.pageInfo.hasNextPage).toBe(true);
    backward.unshift(...page.pickJobs.map((j) => j.id));
  }
  return [forward, backward];
}

describe("sorting and cursor paging", () => {
  it("the sort values have ties and absent values (what the order has to get right)", () => {
    for (const s of SORTS) {
      const values = all.map(s.value).filter((v) => v !== null);
      if (s.field !== "created" && s.field !== "lastModified") {
        expect(values.length, s.field).toBeLessThan(N);
        expect(new Set(values).size, s.field).toBeLessThan(values.length);
      }
    }
  });

  for (const s of SORTS) {
    for (const dir of ["ASC", "DESC"] as const) {
      it(`${s.field} ${dir}: forward and backward pages of 37 cover all 220 once, in order`, async () => {
        const expected = oracle(s, dir);
        const [forward, backward] = await pageBothWays({}, [{ [s.field]: dir }], 37);
        expect(new Set(forward).size).toBe(forward.length);
        expect(forward).toEqual(expected);
        expect(backward).toEqual(expected);
      });
    }
  }

  it("goes back from the middle to exactly the previous page, and forward again", async () => {
    const sort = [{ targetTime: "DESC" }];
    const p1 = await search({ query: {}, sort, size: 37 });
    const p2 = await search({ query: {}, sort, size: 37, after: p1.pageInfo.endCursor });
    const back = await search({ query: {}, sort, last: 37, before: p2.pageInfo.startCursor });
    expect(back.pickJobs.map((j) => j.id)).toEqual(p1.pickJobs.map((j) => j.id));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const again = await search({ query: {}, sort, size: 37, after: back.pageInfo.endCursor });
    expect(again.pickJobs.map((j) => j.id)).toEqual(p2.pickJobs.map((j) => j.id));
  });

  it("the scanner's work list (facility, OPEN or IN_PROGRESS) sorted by targetTime ASC pages within its filter", async () => {
    const query = {
      and: [{ facilityRef: { eq: facilities[0] } }, { status: { in: ["OPEN", "IN_PROGRESS"] } }],
    };
    const subset = all.filter(
      (j) => j.facilityRef === facilities[0] && ["OPEN", "IN_PROGRESS"].includes(j.status),
    );
    expect(subset.length).toBeGreaterThan(20);
    expect(subset.some((j) => targetTime(j) === null)).toBe(true);
    const expected = oracle(SORTS[2]!, "ASC", subset);
    const [forward, backward] = await pageBothWays(query, [{ targetTime: "ASC" }], 9);
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected);
    // The first page is what a scanner shows: the most urgent jobs, those without a target time last.
    const first = await search({ query, sort: [{ targetTime: "ASC" }], options: { withTotal: true } });
    expect(first.pickJobs.map((j) => j.id)).toEqual(expected.slice(0, 20));
    expect(first.total).toBe(subset.length);
  });

  it("without sort: every job once; defaults to 20 per page", async () => {
    expect((await search({ query: {} })).pickJobs).toHaveLength(20);
    expect((await search({ query: {}, last: 250 })).pickJobs).toHaveLength(N);
    const [forward, backward] = await pageBothWays({}, undefined, 50);
    expect([...forward].sort()).toEqual(where(() => true));
    expect(backward).toEqual(forward);
  });
});

describe("bad searches (400)", () => {
  it.each([
    ["unknown query field", { query: { color: { eq: "red" } } }],
    ["unknown query field inside and", { query: { and: [{ color: { eq: "red" } }] } }],
    ["unknown operator", { query: { orderRef: { in: ["x"] } } }],
    ["unknown operator on a date", { query: { created: { like: "2026" } } }],
    ["like where there is none", { query: { tenantOrderId: { like: "x" } } }],
    ["unknown status", { query: { status: { eq: "FLYING" } } }],
    ["notIn on status (not in the spec)", { query: { status: { notIn: ["OPEN"] } } }],
    ["unknown picking method", { query: { preferredPickingMethods: { contains: { eq: "FAST" } } } }],
    ["contains missing on a list field", { query: { tenantArticleIds: { eq: "x" } } }],
    ["transfers with an unknown operator", { query: { transfers: { contains: { id: { in: ["a"] } } } } }],
    ["exists that is no boolean", { query: { transfers: { exists: "yes" } } }],
    [
      "in with more than 25 values",
      { query: { tenantOrderId: { in: Array.from({ length: 26 }, (_, i) => `v${i}`) } } },
    ],
    ["missing query", { size: 5 }],
    ["size above 250", { query: {}, size: 251 }],
    ["last above 250", { query: {}, last: 251 }],
    ["size 0", { query: {}, size: 0 }],
    ["size with last", { query: {}, size: 5, last: 5 }],
    ["after with before", { query: {}, after: "x", before: "y" }],
    ["two sort entries", { query: {}, sort: [{ created: "ASC" }, { targetTime: "ASC" }] }],
    ["unknown sort field", { query: {}, sort: [{ orderDate: "ASC" }] }],
    ["unknown sort direction", { query: {}, sort: [{ created: "UP" }] }],
    ["malformed cursor", { query: {}, after: "not-a-cursor!" }],
    ["a cursor that was not issued", { query: {}, after: "bm90LWEtY3Vyc29y" }],
    ["cursor of another sort", { query: {}, sort: [{ created: "ASC" }], after: "" }],
    ["a date that is no date", { query: { targetTime: { gt: "tomorrow" } } }],
    ["a duration that is no duration", { query: { targetTime: { after: "P1X" } } }],
    ["a regex that does not compile", { query: { consumerName: { like: "(" } } }],
  ])("%s", async (label, b) => {
    let payload = b as Record<string, unknown>;
    if (label === "cursor of another sort") {
      const first = await search({ query: {}, sort: [{ targetTime: "ASC" }], size: 5 });
      payload = { ...payload, after: first.pageInfo.endCursor };
    }
    const res = await api("POST", "/api/pickjobs/search", payload);
    expect(res.status, res.text).toBe(400);
    expect(res.body[0]).toMatchObject({ summary: expect.any(String), code: expect.any(String) });
  });
});
