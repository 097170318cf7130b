/**
 * Benchmark scenarios. Each names the REST call it measures, how to build autocannon's request
 * sequence for the system and for the baseline, and optionally what to seed first. To add one,
 * write a {@link Scenario} and append it to {@link scenarios}. A {@link ViewScenario} measures what
 * a client sends for one screen (several requests, some in parallel) as one iteration: its figures
 * are per view. A {@link FanoutScenario} runs on the system alone, in two consumer modes (fanout.ts).
 *
 * This module is loaded by the load-generator worker too (request builders are functions, which
 * cannot be sent to a worker, so the worker imports them by scenario name): keep its imports light
 * and type-only, and make seeds structured-cloneable (plain data).
 */
import type autocannon from "autocannon";
import type { CarrierSeed } from "./carrier-seed.ts";
import type { FacilityGroupSeed } from "./facilitygroup-seed.ts";
import type { ItemReturnSeed } from "./itemreturn-seed.ts";
import type { LoadUnitSeed } from "./loadunit-seed.ts";
import type { NotificationSeed } from "./notification-seed.ts";
import type { PickJobSeed } from "./pickjob-seed.ts";
import {
  inParallel,
  loadUnitsBody,
  mappingBody,
  sendJson,
  type Target,
  type TargetName,
  VIEW_UNITS_PER_JOB,
} from "./requests.ts";
import type { ViewSeed } from "./view-seed.ts";

export interface SeedOptions {
  /** How many entities a seed creates (BENCH_SEED). */
  size: number;
  /** How many pick jobs the pick job scenarios run over (BENCH_PICKJOBS; seeded in SQL). */
  pickJobs: number;
}

export interface BuildContext<S> {
  /** What {@link Scenario.seed} returned for this target. */
  seed: S;
  /** Unique per measured run: use it to keep unique keys unique across runs. */
  runId: string;
}

/**
 * Builds the request sequence of one run (called once per run, in the load generator's thread;
 * closures may keep counters). Target headers are added by the runner.
 */
export type RequestBuilder<S> = (ctx: BuildContext<S>) => autocannon.Request[];

export interface Scenario<S = undefined> {
  name: string;
  description: string;
  /**
   * Runs once per target before warm-up, over HTTP (or, for bulk data, in SQL through
   * {@link Target.databaseUrl}); the result is passed to the builders.
   */
  seed?: (target: Target, opts: SeedOptions) => Promise<S>;
  system: RequestBuilder<S>;
  baseline: RequestBuilder<S>;
}

/** How a view's requests go out: the client's own keep-alive connections to the target (load.ts). */
export interface ViewClient {
  /** One request with the target's headers (and `body`, JSON text); the JSON of a 2xx answer, else {@link BadAnswer}. */
  json<T>(method: "GET" | "POST", path: string, body?: string): Promise<T>;
}

/** An answer that does not show the view: not 2xx, GraphQL errors, or other data than was seeded. */
export class BadAnswer extends Error {}

/**
 * Builds one run's view (called once per run, in the load generator's thread): a function sending
 * one view's requests through `client` and checking what they answered.
 */
export type ViewBuilder<S> = (ctx: BuildContext<S>) => (client: ViewClient) => Promise<void>;

/**
 * A scenario measured per view (load.ts' view loop): BENCH_CONNECTIONS clients each send one view's
 * requests, the next view once the last is shown; throughput is views per second, latency a whole
 * view's, CPU per view.
 */
export interface ViewScenario<S> {
  name: string;
  description: string;
  seed?: Scenario<S>["seed"];
  view: Record<TargetName, ViewBuilder<S>>;
  /** Another scenario this one is compared with, system against system in the same run (report.ts). */
  comparedWith?: string;
}

/**
 * A fan-out scenario (fanout.ts): one write measured on the system alone, with every service's
 * event consumers running and with only `kept`'s (the others' services restarted with
 * EVENT_CONSUMERS=off), so that what a consumer adds to writes it does not use is a figure.
 */
export interface FanoutScenario {
  name: string;
  description: string;
  /** The write, as the report names it ("POST category"). */
  write: string;
  /** The service whose consumers run in both modes: the one that uses the write's events. */
  kept: string;
  system: RequestBuilder<undefined>;
}

/** A scenario of any seed type (the list mixes them). */
export type AnyScenario = Scenario<any> | ViewScenario<any> | FanoutScenario;

/** A scenario comparing the system with the baseline (every kind but the fan-out). */
export type ComparisonScenario = Exclude<AnyScenario, FanoutScenario>;

export const isFanout = (s: AnyScenario): s is FanoutScenario => "kept" in s;

/** The request builder of a request scenario for `target` (a fan-out scenario has the system's only). */
export function requestsFor(
  scenario: Scenario<any> | FanoutScenario,
  target: TargetName,
): RequestBuilder<any> {
  if (target === "system") return scenario.system;
  if (isFanout(scenario)) throw new Error(`${scenario.name} runs on the system only`);
  return scenario.baseline;
}

const categoryBody = (tenantCategoryId: string, n: number) => ({
  tenantCategoryId,
  nameLocalized: { en_US: `Bench category ${n}`, de_DE: `Benchmark-Kategorie ${n}` },
  customAttributes: { bench: true, n },
});

/** Categories seeded through the target's own POST /api/categories; returns their ids. */
async function seedCategories(target: Target, opts: SeedOptions): Promise<{ ids: string[] }> {
  const created = await inParallel(opts.size, 10, (i) =>
    sendJson<{ id: string }>(target, "POST", "/api/categories", categoryBody(`SEED-${i}`, i), 201),
  );
  return { ids: created.map((c) => c.id) };
}

/** GET /api/categories/{id}, cycling through the seeded ids. */
const getCategoryById: RequestBuilder<{ ids: string[] }> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({ ...req, path: `/api/categories/${seed.ids[i++ % seed.ids.length]}` }),
    },
  ];
};

/** POST /api/categories with a tenantCategoryId unique per request. */
const createCategory: RequestBuilder<undefined> = ({ runId }) => {
  let n = 0;
  return [
    {
      method: "POST",
      path: "/api/categories",
      headers: { "content-type": "application/json" },
      setupRequest: (req) => {
        n++;
        return { ...req, body: JSON.stringify(categoryBody(`B-${runId}-${n}`, n)) };
      },
    },
  ];
};

export const scenarios: AnyScenario[] = [
  {
    name: "get-category",
    description: "GET /api/categories/{id}, rotating through the seeded categories",
    seed: seedCategories,
    system: getCategoryById,
    baseline: getCategoryById,
  } satisfies Scenario<{ ids: string[] }>,
  {
    name: "create-category",
    description:
      "POST /api/categories: the category and its outbox row, a unique tenantCategoryId per request",
    system: createCategory,
    baseline: createCategory,
  } satisfies Scenario,
];

/** Seeds once per target database (all pick job scenarios share it); imported lazily (pulls in pg). */
const seedPickJobs = async (target: Target, opts: SeedOptions): Promise<PickJobSeed> =>
  (await import("./pickjob-seed.ts")).seedPickJobs(target, opts.pickJobs);

/** GET /api/pickjobs/{id}, rotating through a random sample of the seeded jobs. */
const getPickJobById: RequestBuilder<PickJobSeed> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({ ...req, path: `/api/pickjobs/${seed.ids[i++ % seed.ids.length]}` }),
    },
  ];
};

/** The page size of the pick job search and of the views. */
const PAGE = 20;

/** The scanner's work list: one facility's OPEN jobs by targetTime, first page of 20. */
export const pickJobSearchBody = (facilityId: string) => ({
  query: { and: [{ facilityRef: { eq: facilityId } }, { status: { eq: "OPEN" } }] },
  sort: [{ targetTime: "ASC" }],
  size: PAGE,
});

/** POST /api/pickjobs/search: {@link pickJobSearchBody} in the seeded facility. */
const searchPickJobs: RequestBuilder<PickJobSeed> = ({ seed }) => [
  {
    method: "POST",
    path: "/api/pickjobs/search",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(pickJobSearchBody(seed.facilityId)),
  },
];

/** POST /api/pickjobs: a two-line shipping job in the seeded facility, unique tenantOrderId. */
const createPickJob: RequestBuilder<PickJobSeed> = ({ seed, runId }) => {
  let n = 0;
  return [
    {
      method: "POST",
      path: "/api/pickjobs",
      headers: { "content-type": "application/json" },
      setupRequest: (req) => {
        n++;
        return {
          ...req,
          body: JSON.stringify({
            facilityRef: seed.facilityId,
            orderDate: "2026-01-01T10:00:00.000Z",
            tenantOrderId: `B-${runId}-${n}`,
            deliveryinformation: { channel: "SHIPPING", targetTime: "2026-01-05T10:00:00.000Z" },
            pickLineItems: [
              { article: { tenantArticleId: "4711", title: "Cologne Water" }, quantity: 2 },
              { article: { tenantArticleId: "0815", title: "Soap" }, quantity: 1 },
            ],
          }),
        };
      },
    },
  ];
};

// The reads run before the writes, so they measure the seeded BENCH_PICKJOBS jobs and no more.
scenarios.push(
  {
    name: "get-pickjob",
    description: "GET /api/pickjobs/{id}, random ids out of BENCH_PICKJOBS (100k) jobs",
    seed: seedPickJobs,
    system: getPickJobById,
    baseline: getPickJobById,
  } satisfies Scenario<PickJobSeed>,
  {
    name: "search-pickjobs",
    description:
      "POST /api/pickjobs/search facility eq + status OPEN, sort targetTime ASC, size 20, over BENCH_PICKJOBS (100k) jobs",
    seed: seedPickJobs,
    system: searchPickJobs,
    baseline: searchPickJobs,
  } satisfies Scenario<PickJobSeed>,
  {
    name: "create-pickjob",
    description: "POST /api/pickjobs: facility check, then job row (derived columns) + outbox row",
    seed: seedPickJobs,
    system: createPickJob,
    baseline: createPickJob,
  } satisfies Scenario<PickJobSeed>,
);

/** Seeds the load unit scenarios (imported lazily: pulls in pg). */
const seedLoadUnits = async (target: Target, opts: SeedOptions): Promise<LoadUnitSeed> =>
  (await import("./loadunit-seed.ts")).seedLoadUnits(target, opts.pickJobs);

/** GET /api/loadunits/{id}, rotating through the seeded load units. */
const getLoadUnitById: RequestBuilder<LoadUnitSeed> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({ ...req, path: `/api/loadunits/${seed.unitIds[i++ % seed.unitIds.length]}` }),
    },
  ];
};

/** POST /api/loadunits: 5 load units per request, each of a pick job the projection knows. */
const createLoadUnits: RequestBuilder<LoadUnitSeed> = ({ seed }) => {
  let n = 0;
  return [
    {
      method: "POST",
      path: "/api/loadunits",
      headers: { "content-type": "application/json" },
      setupRequest: (req) => {
        return { ...req, body: JSON.stringify(loadUnitsBody(seed.jobIds, n++)) };
      },
    },
  ];
};

scenarios.push(
  {
    name: "get-loadunit",
    description: "GET /api/loadunits/{id}, rotating through 1,000 seeded load units",
    seed: seedLoadUnits,
    system: getLoadUnitById,
    baseline: getLoadUnitById,
  } satisfies Scenario<LoadUnitSeed>,
  {
    name: "create-loadunits",
    description:
      "POST /api/loadunits with 5 load units: pick jobs from the projection, then 5 rows + 5 outbox rows in one statement",
    seed: seedLoadUnits,
    system: createLoadUnits,
    baseline: createLoadUnits,
  } satisfies Scenario<LoadUnitSeed>,
);

/** Seeds the carrier scenarios (imported lazily: pulls in pg and the carriers service). */
const seedCarriers = async (target: Target): Promise<CarrierSeed> =>
  (await import("./carrier-seed.ts")).seedCarriers(target);

/** GET /api/carriers/{id}/configuration (20 mappings each), rotating through 200 carriers. */
const getCarrierConfiguration: RequestBuilder<CarrierSeed> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({
        ...req,
        path: `/api/carriers/${seed.readIds[i++ % seed.readIds.length]}/configuration`,
      }),
    },
  ];
};

/** Writes per visit of a versioned document in the write scenarios below. */
const WRITES_PER_VISIT = 4;

/** One write of {@link versionedWrites}: the request naming `version`. */
type VersionedWrite = { path: string; body: unknown };

/**
 * What a client does to change a versioned document: read it (its version), then
 * {@link WRITES_PER_VISIT} writes, each naming the version the previous write left. Each connection
 * works on one entity at a time and moves on to the next of `entities` after its writes, so no two
 * connections share one and every write names the current version (a 409 would count as an error).
 */
function versionedWrites<E>(opts: {
  entities: E[];
  readPath: (entity: E) => string;
  method: "POST" | "PATCH";
  /** The n-th write (n counts over the run), on `entity` at `version`. */
  write: (entity: E, version: number, n: number) => VersionedWrite;
  /** The status of a successful write. */
  written: number;
}): autocannon.Request[] {
  const { entities, readPath, write, written } = opts;
  let next = 0;
  let n = 0;
  const read: autocannon.Request = {
    method: "GET",
    setupRequest: (req, context) => {
      context.entity = entities[next++ % entities.length];
      return { ...req, path: readPath(context.entity as E) };
    },
    onResponse: (status, body, context) => {
      if (status === 200) context.version = (JSON.parse(body) as { version: number }).version;
    },
  };
  const change: autocannon.Request = {
    method: opts.method,
    headers: { "content-type": "application/json" },
    setupRequest: (req, context) => {
      const w = write(context.entity as E, context.version as number, n++);
      return { ...req, path: w.path, body: JSON.stringify(w.body) };
    },
    onResponse: (status, _body, context) => {
      if (status === written) context.version = (context.version as number) + 1;
    },
  };
  return [read, ...Array.from({ length: WRITES_PER_VISIT }, () => change)];
}

/**
 * What a client does to add mappings: read the configuration (its version), then add 4 mappings
 * naming it, over 2,000 carriers (see {@link versionedWrites}).
 */
const createMappings: RequestBuilder<CarrierSeed> = ({ seed }) =>
  versionedWrites({
    entities: seed.writeIds,
    readPath: (carrier) => `/api/carriers/${carrier}/configuration`,
    method: "POST",
    write: (carrier, version, n) => ({
      path: `/api/carriers/${carrier}/configuration/countryservicemappings`,
      body: mappingBody(version, n),
    }),
    written: 201,
  });

scenarios.push(
  {
    name: "get-carrier-configuration",
    description:
      "GET /api/carriers/{id}/configuration with 20 country service mappings, rotating through 200 carriers",
    seed: seedCarriers,
    system: getCarrierConfiguration,
    baseline: getCarrierConfiguration,
  } satisfies Scenario<CarrierSeed>,
  {
    name: "create-mappings",
    description:
      "GET a carrier's configuration, then 4 x POST .../countryservicemappings naming its version (configuration locked, rewritten, one outbox row each)",
    seed: seedCarriers,
    system: createMappings,
    baseline: createMappings,
  } satisfies Scenario<CarrierSeed>,
);

/** Seeds the item return scenarios (imported lazily: pulls in pg and the returns service's functions). */
const seedItemReturns = async (target: Target): Promise<ItemReturnSeed> =>
  (await import("./itemreturn-seed.ts")).seedItemReturns(target);

/** GET /api/itemreturnjobs/{id} (2 item returns of 5 returned lines each), rotating through 200 jobs. */
const getItemReturnJob: RequestBuilder<ItemReturnSeed> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({
        ...req,
        path: `/api/itemreturnjobs/${seed.readIds[i++ % seed.readIds.length]}`,
      }),
    },
  ];
};

/** The line statuses a PATCH moves among: the open ones (a decided line could not change again). */
const OPEN_LINE_STATUSES = ["IN_PROGRESS", "WAITING_FOR_INPUT", "OPEN"];

/**
 * What the returns desk does while checking returned items: read the job (its version), then 4 line
 * item PATCHes (status, decision reason, refund) naming the job version the previous one left, over
 * 2,000 jobs (see {@link versionedWrites}). No line is decided, so every job takes PATCHes for good.
 */
const patchReturnLines: RequestBuilder<ItemReturnSeed> = ({ seed }) =>
  versionedWrites({
    entities: seed.writeJobs,
    readPath: (job) => `/api/itemreturnjobs/${job.id}`,
    method: "PATCH",
    write: (job, version, n) => ({
      path: `/api/itemreturnjobs/${job.id}/${job.lines[n % job.lines.length]}`,
      body: {
        itemReturnJobVersion: version,
        status: OPEN_LINE_STATUSES[n % OPEN_LINE_STATUSES.length],
        decisionReason: { reasonLocalized: { en_US: "Checked at the returns desk" } },
        refund: { status: "OPEN", percent: 50 + (n % 51) },
      },
    }),
    written: 200,
  });

scenarios.push(
  {
    name: "get-item-return-job",
    description:
      "GET /api/itemreturnjobs/{id} with 2 item returns of 5 returned line items each, rotating through 200 jobs",
    seed: seedItemReturns,
    system: getItemReturnJob,
    baseline: getItemReturnJob,
  } satisfies Scenario<ItemReturnSeed>,
  {
    name: "patch-return-line",
    description:
      "GET an item return job, then 4 x PATCH .../itemreturns/{id}/returnedlineitems/{id} naming its version (job locked, rewritten with its derived columns, one outbox row each)",
    seed: seedItemReturns,
    system: patchReturnLines,
    baseline: patchReturnLines,
  } satisfies Scenario<ItemReturnSeed>,
);

/** Seeds the facility group scenarios (imported lazily: pulls in pg and the catalog's functions). */
const seedFacilityGroups = async (target: Target): Promise<FacilityGroupSeed> =>
  (await import("./facilitygroup-seed.ts")).seedFacilityGroups(target);

/** GET /api/facilitygroups/{id} (50 facilities each), rotating through 200 groups. */
const getFacilityGroup: RequestBuilder<FacilityGroupSeed> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({
        ...req,
        path: `/api/facilitygroups/${seed.readIds[i++ % seed.readIds.length]}`,
      }),
    },
  ];
};

/** Facilities one connection adds to a group before it moves on to the next group. */
const ADDS_PER_GROUP_VISIT = 50;

/**
 * The `k`-th facility added to write group `g` (facilitygroup-seed.ts): distinct within a group, and
 * each facility among the first `stride` of at most 10 groups.
 */
const groupFacility = (seed: FacilityGroupSeed, g: number, k: number): string =>
  seed.writeFacilities[(g * seed.stride + k) % seed.writeFacilities.length]!;

/**
 * What a client does to fill groups: read a group (how many facilities it holds), then add
 * {@link ADDS_PER_GROUP_VISIT} facilities to it one `VERSIONLESS_ADD_FACILITIES_TO_GROUP` at a time,
 * each one the group does not hold yet; then the next group of 1,000. Each connection fills one group
 * at a time and no two connections share one. The read makes every add a real one in every run
 * (warm-up and rounds start their group rotation anew on groups earlier runs filled part of): 1
 * request in 51. Groups grow by 50 per visit, to ~150 facilities in a run of this bench (the quota
 * is 1,000).
 */
const addFacilitiesVersionless: RequestBuilder<FacilityGroupSeed> = ({ seed }) => {
  let next = 0;
  const read: autocannon.Request = {
    method: "GET",
    setupRequest: (req, context) => {
      context.group = next++ % seed.writeIds.length;
      return { ...req, path: `/api/facilitygroups/${seed.writeIds[context.group as number]}` };
    },
    onResponse: (status, body, context) => {
      if (status === 200) context.held = (JSON.parse(body) as { facilityCount: number }).facilityCount;
    },
  };
  const add: autocannon.Request = {
    method: "POST",
    headers: { "content-type": "application/json" },
    setupRequest: (req, context) => {
      const g = context.group as number;
      const k = (context.held as number) ?? 0;
      context.held = k + 1;
      return {
        ...req,
        path: `/api/facilitygroups/${seed.writeIds[g]}/actions`,
        body: JSON.stringify({
          name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP",
          facilitiesToAdd: [groupFacility(seed, g, k)],
        }),
      };
    },
  };
  return [read, ...Array.from({ length: ADDS_PER_GROUP_VISIT }, () => add)];
};

scenarios.push(
  {
    name: "get-facility-group",
    description: "GET /api/facilitygroups/{id} with 50 facilities each, rotating through 200 groups",
    seed: seedFacilityGroups,
    system: getFacilityGroup,
    baseline: getFacilityGroup,
  } satisfies Scenario<FacilityGroupSeed>,
  {
    name: "add-facilities-versionless",
    description:
      "GET a facility group, then 50 x POST .../actions VERSIONLESS_ADD_FACILITIES_TO_GROUP of one facility it does not hold (facility and group locked, group counted and rewritten, one outbox row each)",
    seed: seedFacilityGroups,
    system: addFacilitiesVersionless,
    baseline: addFacilitiesVersionless,
  } satisfies Scenario<FacilityGroupSeed>,
);

/** Seeds the notification search (imported lazily: pulls in pg and the notifications service's functions). */
const seedNotifications = async (target: Target): Promise<NotificationSeed> =>
  (await import("./notification-seed.ts")).seedNotifications(target);

/** Seeds the tenant's notification center configuration (10 channels). */
const seedNotificationConfig = async (target: Target): Promise<undefined> =>
  (await import("./notification-seed.ts")).seedNotificationConfig(target);

/** The back office's notification list: one facility's newest first, page of 20. */
const searchNotifications: RequestBuilder<NotificationSeed> = ({ seed }) => [
  {
    method: "POST",
    path: "/api/notifications/search",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      query: { facilityRef: { eq: seed.facilityRef } },
      sort: [{ created: "DESC" }],
      size: 20,
    }),
  },
];

/** GET /api/configurations/notifications: the tenant's configuration. */
const getNotificationConfig: RequestBuilder<undefined> = () => [
  { method: "GET", path: "/api/configurations/notifications" },
];

scenarios.push(
  {
    name: "search-notifications",
    description:
      "POST /api/notifications/search facilityRef eq, sort created DESC, size 20, over 5,000 stored notifications in 10 facilities",
    seed: seedNotifications,
    system: searchNotifications,
    baseline: searchNotifications,
  } satisfies Scenario<NotificationSeed>,
  {
    name: "get-notification-config",
    description: "GET /api/configurations/notifications: the tenant's configuration of 10 channels",
    seed: seedNotificationConfig,
    system: getNotificationConfig,
    baseline: getNotificationConfig,
  } satisfies Scenario<undefined>,
);

/** Seeds the view scenarios (imported lazily: pulls in pg). */
const seedView = async (target: Target, opts: SeedOptions): Promise<ViewSeed> =>
  (await import("./view-seed.ts")).seedView(target, opts.pickJobs);

/**
 * The view as GraphQL: the page {@link pickJobSearchBody} asks for (the filter and sort as GraphQL
 * arguments), with line items and load units.
 */
export const VIEW_QUERY = `query View($f: String!) {
  pickJobs(first: ${PAGE}, filter: {facilityRef: {eq: $f}, status: {eq: OPEN}}, sort: [{targetTime: ASC}]) {
    edges { node { id status orderRef
      pickLineItems { id quantity picked status article { tenantArticleId title imageUrl } }
      loadUnits { id status } } }
  }
}`;

/** Whether a view showed what was seeded: a page of 20 jobs, each with its load units. */
function checkView(jobs: { loadUnits: unknown[] }[]): void {
  if (jobs.length !== PAGE) throw new BadAnswer(`${jobs.length} pick jobs, not ${PAGE}`);
  const job = jobs.find((j) => j.loadUnits.length !== VIEW_UNITS_PER_JOB);
  if (job) throw new BadAnswer(`a job with ${job.loadUnits.length} load units, not ${VIEW_UNITS_PER_JOB}`);
}

/** One request: POST /graphql {@link VIEW_QUERY}. */
const graphqlView: ViewBuilder<ViewSeed> = ({ seed }) => {
  const body = JSON.stringify({ query: VIEW_QUERY, variables: { f: seed.facilityId } });
  type Answer = {
    data?: { pickJobs?: { edges: { node: { loadUnits: unknown[] } }[] } | null } | null;
    errors?: { message: string }[];
  };
  return async (client) => {
    const res = await client.json<Answer>("POST", "/graphql", body);
    if (res.errors?.length) throw new BadAnswer(`GraphQL: ${res.errors[0]!.message}`);
    checkView((res.data?.pickJobs?.edges ?? []).map((e) => e.node));
  };
};

/**
 * The same data through REST, as a client fetches it today: the search, then each job's load units,
 * the 20 GETs in parallel (one connection each, as a client opens them).
 */
const restView: ViewBuilder<ViewSeed> = ({ seed }) => {
  const search = JSON.stringify(pickJobSearchBody(seed.facilityId));
  return async (client) => {
    const page = await client.json<{ pickJobs: { id: string }[] }>("POST", "/api/pickjobs/search", search);
    checkView(
      await Promise.all(
        page.pickJobs.map((j) =>
          client.json<{ loadUnits: unknown[] }>("GET", `/api/pickjobs/${j.id}/loadunits`),
        ),
      ),
    );
  };
};

// The bare server has no GraphQL: its floor for this data is the REST view. graphql-view's ratio to
// it mixes what the GraphQL layer costs with the 20 round trips it saves; the comparison the view
// scenarios are for is graphql-view against rest-view on the system, in the same run (comparedWith).
scenarios.push(
  {
    name: "graphql-view",
    description:
      "POST /graphql: a facility's 20 OPEN pick jobs by targetTime with line items and load units (2 each), one request per view; baseline: the REST view",
    seed: seedView,
    view: { system: graphqlView, baseline: restView },
    comparedWith: "rest-view",
  } satisfies ViewScenario<ViewSeed>,
  {
    name: "rest-view",
    description:
      "the same view through REST: POST /api/pickjobs/search, then GET /api/pickjobs/{id}/loadunits of the 20 jobs in parallel",
    seed: seedView,
    view: { system: restView, baseline: restView },
  } satisfies ViewScenario<ViewSeed>,
);

// Last of the list: it restarts services (and restores them after), so every scenario before it
// runs on the processes the bench started.
scenarios.push({
  name: "fanout",
  description:
    "POST /api/categories on the system only: every event consumer running, then only audit's (every other service that runs consumers, loadunits and notifications, restarted with EVENT_CONSUMERS=off), alternating, all first and last",
  write: "POST category",
  kept: "audit",
  system: createCategory,
} satisfies FanoutScenario);

export function findScenario(name: string): AnyScenario {
  const s = scenarios.find((x) => x.name === name);
  if (!s) throw new Error(`unknown scenario ${name} (known: ${scenarios.map((x) => x.name).join(", ")})`);
  return s;
}
