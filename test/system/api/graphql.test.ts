/**
 * /graphql (beta) end to end, through a real GraphQL client (graphql-request) over HTTP: every root
 * field of schema.graphql answers what REST answers for the same entities (checked: the fields this
 * file calls are exactly the schema's); connections page both ways in the REST search's order with
 * working edge cursors and totalCount, list connections page forward; GET for queries (never
 * mutations); semantic nullability (a failing field is null next to its intact siblings, with an
 * error naming its path); X-User-Agent on the trace and in the audit record (malformed: ignored);
 * 401/403 like REST; tenant isolation; one batched RPC per relationship and level; stale versions;
 * parse, validation and argument errors; the bench's view query within the default limits. (The
 * depth and cost limits: graphql-limits.test.ts.)
 */
import { randomBytes } from "node:crypto";
import { SpanKind } from "@opentelemetry/api";
import { Kind, parse } from "graphql";
import { gql } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import {
  callsOf,
  type Gql,
  type GqlResult,
  graphqlClient,
  project,
  rootFields,
  rpcCalls,
  selectionFromRest,
  spansOf,
} from "../../support/graphql.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

type Api = ReturnType<System["as"]>;
type Json = Record<string, any>;

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const TENANT_A = "gql-acme";
const TENANT_B = "gql-globex";

let sys: System;
let tokenA: string;
let api: Api;
let q: Gql;
let apiB: Api;
let qB: Gql;
/** Tenant A's facility (tenantFacilityId GQL-F1). */
let facility: Json;
let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}-${randomBytes(2).toString("hex")}`;

/** Root fields some test got a value for (no error under them): the coverage test compares them with the SDL. */
const covered = { Query: new Set<string>(), Mutation: new Set<string>() };

/** `client`, recording the root fields it got answered (see `covered`). */
function recording(client: Gql): Gql {
  return async (query, variables, headers) => {
    const r = await client(query, variables, headers);
    let doc: ReturnType<typeof parse>;
    try {
      doc = parse(query);
    } catch {
      return r; // a syntax error (the errors tests): nothing was answered
    }
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION || def.operation === "subscription") continue;
      const root = def.operation === "mutation" ? "Mutation" : "Query";
      for (const sel of def.selectionSet.selections) {
        if (sel.kind !== Kind.FIELD || sel.name.value.startsWith("__")) continue;
        const key = sel.alias?.value ?? sel.name.value;
        const value = (r.data as Json | null | undefined)?.[key];
        if (value !== null && value !== undefined && !r.errors.some((e) => e.path?.[0] === key)) {
          covered[root].add(sel.name.value);
        }
      }
    }
    return r;
  };
}

async function tenant(name: string, opts: Parameters<System["token"]>[1] = {}) {
  const token = await sys.token(name, opts);
  return { token, api: sys.as(token), q: recording(graphqlClient(sys, token)) };
}

/** A REST call that must succeed; its body. */
async function rest(as: Api, method: string, path: string, body?: unknown, status = [200, 201]) {
  const res = await as(method, path, body);
  expect(status, `${method} ${path}: ${res.status} ${res.text}`).toContain(res.status);
  return res.body;
}

/** A GraphQL answer without errors; its data. */
function ok<T = Json>(r: GqlResult<T>): T {
  expect(r.errors, JSON.stringify(r.errors)).toEqual([]);
  expect(r.status).toBe(200);
  return r.data as T;
}

/**
 * `header { call SELECTION }` where SELECTION asks for every field of `type` the REST body `restBody`
 * holds: the answer must be REST's body (projected onto the selection), and `type` must have every
 * field REST answers. Answers the data.
 */
async function sameAsRest(
  client: Gql,
  header: string,
  call: string,
  variables: Json,
  type: string,
  restBody: unknown,
) {
  const { selection, expected, missing } = selectionFromRest(type, restBody);
  const r = await client(`${header} { ${call} ${selection} }`, variables);
  const data = ok(r);
  const key = call.split("(")[0]!.trim();
  expect(data[key]).toEqual(expected);
  expect(missing, `fields REST answers that ${type} cannot select`).toEqual([]);
  return data[key];
}

/** A connection's nodes (with every field the REST items hold) equal REST's items, in order. */
async function sameListAsRest(
  client: Gql,
  header: string,
  call: string,
  variables: Json,
  type: string,
  restItems: unknown[],
  total?: number,
) {
  expect(restItems.length, "REST answered no items to compare with").toBeGreaterThan(0);
  const { selection, expected } = selectionFromRest(type, restItems);
  const r = await client(
    `${header} { ${call} { totalCount pageInfo { hasNextPage hasPreviousPage } edges { cursor node ${selection} } } }`,
    variables,
  );
  const data = ok(r);
  const conn = data[call.split("(")[0]!.trim()];
  expect(conn.edges.map((e: Json) => e.node)).toEqual(expected);
  for (const e of conn.edges) expect(e.cursor).toEqual(expect.any(String));
  if (total !== undefined) expect(conn.totalCount).toBe(total);
  return conn;
}

/** One error at `path` (or at the root field when omitted), in our shape. */
function oneError(r: GqlResult, code: string | RegExp, status: number, path?: (string | number)[]) {
  expect(r.errors, JSON.stringify(r.errors)).toHaveLength(1);
  const e = r.errors[0]!;
  if (typeof code === "string") expect(e.extensions.code).toBe(code);
  else expect(e.extensions.code).toMatch(code);
  expect(e.extensions.status).toBe(status);
  if (path) expect(e.path).toEqual(path);
  return e;
}

beforeAll(async () => {
  sys = await startSystem();
  const a = await tenant(TENANT_A, { user: "gina.graph" });
  tokenA = a.token;
  api = a.api;
  q = a.q;
  const b = await tenant(TENANT_B);
  apiB = b.api;
  qB = graphqlClient(sys, b.token);
  facility = await rest(api, "POST", "/api/facilities", {
    name: "GraphQL store",
    address: facilityAddress,
    tenantFacilityId: "GQL-F1",
  });
});
afterAll(() => sys?.close());

/**
 * A tenant with two webhook subscriptions to a port nothing listens on, and a category that fires one
 * of them: its delivery fails every attempt (about 3 s) while the other tests run, then is a dead letter.
 */
let subs: Awaited<ReturnType<typeof tenant>> & { down: string };
beforeAll(async () => {
  const t = await tenant(uniq("gql-subs"));
  const ids: string[] = [];
  for (const event of ["CATEGORY_CREATED", "PICK_RUN_CREATED"]) {
    const s = await rest(t.api, "POST", "/api/subscriptions", {
      name: uniq("Hook"),
      event,
      target: {
        type: "WEBHOOK",
        callbackUrl: "http://127.0.0.1:9/down",
        headers: [{ key: "X-Api-Key", value: "k" }],
      },
    });
    ids.push(s.id);
  }
  await rest(t.api, "POST", "/api/categories", { nameLocalized: { en_US: "Undeliverable" } });
  subs = { ...t, down: ids[0]! };
});

// --- 1. every root field answers what REST answers -------------------------------------------------

/** How many categories of tenant A are named `name` (REST search): a refused write created none. */
const categoriesNamed = async (name: string) =>
  (
    await rest(api, "POST", "/api/categories/search", {
      query: { name: { eq: name } },
      options: { withTotal: true },
    })
  ).total;

describe("root fields answer what REST answers", () => {
  it("category by id and by URN; createCategory, replaceCategory, deleteCategory as REST sees them", async () => {
    const tenantCategoryId = uniq("TEA");
    const created = await rest(api, "POST", "/api/categories", {
      nameLocalized: { en_US: "Tea", de_DE: "Tee" },
      tenantCategoryId,
      customAttributes: { shelf: 3, tags: ["hot"] },
    });
    const read = await rest(api, "GET", `/api/categories/${created.id}`);
    const byId = gql`query Category($id: ID!)`;
    await sameAsRest(q, byId, "category(id: $id)", { id: created.id }, "Category", read);
    await sameAsRest(
      q,
      byId,
      "category(id: $id)",
      { id: `urn:fft:category:tenantCategoryId:${tenantCategoryId}` },
      "Category",
      read,
    );

    const { selection, tree } = selectionFromRest("Category", read);
    const input = {
      nameLocalized: { en_US: "Coffee" },
      tenantCategoryId: uniq("COF"),
      customAttributes: { a: 1 },
    };
    const made = ok(
      await q(
        `mutation Create($input: CategoryForCreationInput!) { createCategory(input: $input) ${selection} }`,
        {
          input,
        },
      ),
    ).createCategory;
    const afterCreate = await rest(api, "GET", `/api/categories/${made.id}`);
    expect(made).toEqual(project(tree, afterCreate));
    expect(afterCreate).toMatchObject({ ...input, version: 1 });

    const replaced = ok(
      await q(
        `mutation Replace($id: ID!, $input: CategoryForUpdateInput!) { replaceCategory(id: $id, input: $input) ${selection} }`,
        { id: made.id, input: { nameLocalized: { en_US: "Coffee beans" }, version: 1 } },
      ),
    ).replaceCategory;
    const afterReplace = await rest(api, "GET", `/api/categories/${made.id}`);
    expect(replaced).toEqual(project(tree, afterReplace));
    expect(afterReplace).toMatchObject({ nameLocalized: { en_US: "Coffee beans" }, version: 2 });

    const deleted = ok(
      await q(`mutation Delete($id: ID!) { deleteCategory(id: $id) ${selection} }`, { id: made.id }),
    ).deleteCategory;
    expect(deleted).toEqual(project(tree, afterReplace));
    expect((await api("GET", `/api/categories/${made.id}`)).status).toBe(404);
  });

  it("facility by id and by URN; facilities as GET /api/facilities", async () => {
    const read = await rest(api, "GET", `/api/facilities/${facility.id}`);
    const header = gql`query Facility($id: ID!)`;
    await sameAsRest(q, header, "facility(id: $id)", { id: facility.id }, "Facility", read);
    await sameAsRest(
      q,
      header,
      "facility(id: $id)",
      { id: "urn:fft:facility:tenantFacilityId:GQL-F1" },
      "Facility",
      read,
    );
    const list = await rest(api, "GET", "/api/facilities?size=250");
    await sameListAsRest(
      q,
      "query Facilities",
      "facilities(first: 250)",
      {},
      "Facility",
      list.facilities,
      list.total,
    );
  });

  it("facilityGroup by id and by URN with its facilities; facilityGroups as the REST search", async () => {
    const tenantFacilityGroupId = uniq("G");
    const group = await rest(api, "POST", "/api/facilitygroups", {
      tenantFacilityGroupId,
      nameLocalized: { de_DE: "Gruppe", en_US: "Group" },
      facilityRefs: [facility.id],
    });
    const read = await rest(api, "GET", `/api/facilitygroups/${group.id}`);
    const facilityRead = await rest(api, "GET", `/api/facilities/${facility.id}`);
    const header = gql`query Group($id: ID!)`;
    for (const id of [group.id, `urn:fft:facilitygroup:tenantFacilityGroupId:${tenantFacilityGroupId}`]) {
      await sameAsRest(q, header, "facilityGroup(id: $id)", { id }, "FacilityGroup", {
        ...read,
        facilities: [facilityRead],
      });
    }
    const query = { tenantFacilityGroupId: { eq: tenantFacilityGroupId } };
    const search = await rest(api, "POST", "/api/facilitygroups/search", {
      query,
      options: { withTotal: true },
    });
    await sameListAsRest(
      q,
      gql`query Groups($filter: FacilityGroupSearchQuery)`,
      "facilityGroups(filter: $filter)",
      { filter: query },
      "FacilityGroup",
      search.facilityGroups,
      1,
    );
  });

  it("pickJob with facility and loadUnits; pickJobs as the REST search; pickRun; pickJobAction; pickRunAction", async () => {
    const f = await rest(api, "POST", "/api/facilities", { name: "Picking store", address: facilityAddress });
    const facilityRead = await rest(api, "GET", `/api/facilities/${f.id}`);
    const jobs: Json[] = [];
    for (let i = 0; i < 3; i++) {
      jobs.push(await rest(api, "POST", "/api/pickjobs", pickJobBody(f.id, { tenantOrderId: `GQL-${i}` })));
    }
    const unit = await rest(api, "POST", `/api/pickjobs/${jobs[0]!.id}/loadunits`, { codes: ["LU-PJ"] });
    const jobRead = await rest(api, "GET", `/api/pickjobs/${jobs[0]!.id}`);
    await sameAsRest(q, gql`query PickJob($id: ID!)`, "pickJob(id: $id)", { id: jobs[0]!.id }, "PickJob", {
      ...jobRead,
      facility: facilityRead,
      loadUnits: [await rest(api, "GET", `/api/loadunits/${unit.id}`)],
    });

    const query = { facilityRef: { eq: f.id } };
    const sort = [{ created: "DESC" }];
    const search = await rest(api, "POST", "/api/pickjobs/search", {
      query,
      sort,
      options: { withTotal: true },
    });
    expect(search.pickJobs).toHaveLength(3);
    await sameListAsRest(
      q,
      gql`query PickJobs($filter: PickJobSearchQuery, $sort: [PickJobSort!])`,
      "pickJobs(filter: $filter, sort: $sort)",
      { filter: query, sort },
      "PickJob",
      search.pickJobs,
      3,
    );

    const run = await rest(api, "POST", "/api/pickruns", {
      facilityRef: f.id,
      pickJobRefs: [jobs[0]!.id, jobs[1]!.id],
    });
    const runRead = await rest(api, "GET", `/api/pickruns/${run.id}`);
    const runJobs = [
      await rest(api, "GET", `/api/pickjobs/${jobs[0]!.id}`),
      await rest(api, "GET", `/api/pickjobs/${jobs[1]!.id}`),
    ];
    const runSel = selectionFromRest("PickRun", { ...runRead, pickJobs: runJobs, facility: facilityRead });
    const gotRun = ok(
      await q(`query PickRun($id: ID!) { pickRun(id: $id) ${runSel.selection} }`, { id: run.id }),
    );
    expect(gotRun.pickRun).toEqual(runSel.expected);

    const started = ok(
      await q(
        `mutation RunAction($id: ID!, $action: PickRunActionsParameterInput!) { pickRunAction(id: $id, action: $action) ${selectionFromRest("PickRun", runRead).selection} }`,
        { id: run.id, action: { name: "START", version: runRead.version } },
      ),
    ).pickRunAction;
    const runAfter = await rest(api, "GET", `/api/pickruns/${run.id}`);
    expect(runAfter).toMatchObject({ status: "IN_PROGRESS", version: runRead.version + 1 });
    expect(started).toEqual(selectionFromRest("PickRun", runAfter).expected);

    const third = await rest(api, "GET", `/api/pickjobs/${jobs[2]!.id}`);
    const jobSel = selectionFromRest("PickJob", third);
    const acted = ok(
      await q(
        `mutation JobAction($id: ID!, $action: PickJobActionsParameterInput!) { pickJobAction(id: $id, action: $action) ${jobSel.selection} }`,
        { id: third.id, action: { name: "START", version: third.version } },
      ),
    ).pickJobAction;
    const jobAfter = await rest(api, "GET", `/api/pickjobs/${third.id}`);
    expect(jobAfter).toMatchObject({ status: "IN_PROGRESS", version: third.version + 1 });
    expect(acted).toEqual(project(selectionFromRest("PickJob", jobAfter).tree, jobAfter));
  });

  it("pickingConfiguration as GET /api/configurations/picking (the defaults, then after a PATCH)", async () => {
    const call = () => rest(api, "GET", "/api/configurations/picking");
    await sameAsRest(
      q,
      "query PickingConfig",
      "pickingConfiguration",
      {},
      "PickingConfigurations",
      await call(),
    );
    await rest(api, "PATCH", "/api/configurations/picking", {
      version: (await call()).version,
      scanningConfiguration: {
        scanningType: "MUST_SCAN_EACH",
        scanningRule: { values: [{ priority: 1, scanningRuleType: "ARTICLE" }] },
      },
      pickingShortPickConfiguration: {
        confirmationOnShortPick: true,
        shortPickReasons: [{ reasonLocalized: { en_US: "Broken" }, active: true }],
      },
    });
    const patched = await call();
    expect(patched.created).toBeDefined();
    await sameAsRest(q, "query PickingConfig", "pickingConfiguration", {}, "PickingConfigurations", patched);
  });

  it("loadUnit with stack and facility; loadUnits; stack with facilities; stacks; operativeContainerType(s)", async () => {
    const facilityRead = await rest(api, "GET", `/api/facilities/${facility.id}`);
    const stack = await rest(api, "POST", "/api/stacks", {
      facilityRefs: [facility.id],
      processRefs: ["P1"],
    });
    const job = await rest(api, "POST", "/api/pickjobs", pickJobBody(facility.id));
    const units = await rest(api, "POST", "/api/loadunits", {
      loadUnits: [
        {
          pickJobRefs: [job.id],
          stackRef: stack.id,
          codes: ["LU-S"],
          loadUnitLineItems: [{ article: { tenantArticleId: "A-1", title: "Tea" }, quantity: 2 }],
          customAttributes: { temp: "cold" },
        },
        { pickJobRefs: [job.id], codes: ["LU-N"] },
      ],
    });
    const stackRead = await rest(api, "GET", `/api/stacks/${stack.id}`);
    const unitRead = await rest(api, "GET", `/api/loadunits/${units[0].id}`);
    await sameAsRest(q, gql`query LoadUnit($id: ID!)`, "loadUnit(id: $id)", { id: units[0].id }, "LoadUnit", {
      ...unitRead,
      stack: stackRead,
      facility: facilityRead,
    });
    const unstacked = ok(
      await q(gql`query LoadUnit($id: ID!) { loadUnit(id: $id) { id stack { id } } }`, { id: units[1].id }),
    );
    expect(unstacked.loadUnit).toEqual({ id: units[1].id, stack: null });
    const byJob = await rest(api, "GET", `/api/loadunits?pickJobRef=${job.id}`);
    expect(byJob.loadUnits).toHaveLength(2);
    await sameListAsRest(
      q,
      gql`query Units($job: String)`,
      "loadUnits(pickJobRef: $job)",
      { job: job.id },
      "LoadUnit",
      byJob.loadUnits,
      byJob.total,
    );

    await sameAsRest(q, gql`query Stack($id: ID!)`, "stack(id: $id)", { id: stack.id }, "Stack", {
      ...stackRead,
      facilities: [facilityRead],
    });
    const stacks = await rest(api, "GET", "/api/stacks?size=250");
    await sameListAsRest(q, "query Stacks", "stacks(first: 250)", {}, "Stack", stacks.stacks, stacks.total);

    const oct = await rest(api, "POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: "Box", de_DE: "Kiste" },
      descriptionLocalized: { en_US: "A box" },
      allowedOperativeTypes: ["PICKING"],
      scannableIdentifiers: [{ identifiers: ["BX-"], searchType: "PREFIX" }],
      dimensions: { heightInCm: 10, lengthInCm: 20, widthInCm: 30 },
    });
    const octRead = await rest(api, "GET", `/api/operativecontainertypes/${oct.id}`);
    await sameAsRest(
      q,
      gql`query Oct($id: ID!)`,
      "operativeContainerType(id: $id)",
      { id: oct.id },
      "OperativeContainerType",
      octRead,
    );
    const octs = await rest(api, "GET", "/api/operativecontainertypes?size=250");
    await sameListAsRest(
      q,
      "query Octs",
      "operativeContainerTypes(first: 250)",
      {},
      "OperativeContainerType",
      octs.operativeContainerTypes,
      octs.total,
    );
  });

  it("carrier with configuration { countryServiceMappings }; carriers; transitTimeConfiguration", async () => {
    const carrier = await rest(api, "POST", "/api/carriers", {
      key: `CUSTOM_${randomBytes(3).toString("hex").toUpperCase()}`,
      name: "GraphQL Carrier",
      logoUrl: "https://example.com/logo.png",
    });
    const config = await rest(api, "GET", `/api/carriers/${carrier.id}/configuration`);
    const mapping = await rest(
      api,
      "POST",
      `/api/carriers/${carrier.id}/configuration/countryservicemappings`,
      {
        carrierConfigurationVersion: config.version,
        source: { countryCode: "DE" },
        destinations: [{ countryCode: "DE" }, { countryCode: "AT", postalCodes: ["1010"] }],
        carrierProductCategory: "STANDARD",
        transitTime: { minTransitDays: 1, maxTransitDays: 3 },
        deliveryCosts: [{ cost: 4.99, currency: "EUR" }],
        products: ["PAKET"],
      },
    );
    expect(mapping).toBeTruthy();
    const configRead = await rest(api, "GET", `/api/carriers/${carrier.id}/configuration`);
    expect(configRead.countryServiceMappings).toHaveLength(1);
    const carrierRead = await rest(api, "GET", `/api/carriers/${carrier.id}`);
    const got = await sameAsRest(
      q,
      gql`query Carrier($id: ID!)`,
      "carrier(id: $id)",
      { id: carrier.id },
      "Carrier",
      {
        ...carrierRead,
        configuration: configRead,
      },
    );
    expect(got.configuration.countryServiceMappings.map((m: Json) => m.id)).toEqual([
      configRead.countryServiceMappings[0].id,
    ]);
    const slim = ok(
      await q(
        gql`query Carrier($id: ID!) { carrier(id: $id) { id configuration { countryServiceMappings { id } } } }`,
        {
          id: carrier.id,
        },
      ),
    );
    expect(slim.carrier.configuration.countryServiceMappings).toEqual([
      { id: configRead.countryServiceMappings[0].id },
    ]);
    const list = await rest(api, "GET", "/api/carriers?size=250");
    await sameListAsRest(
      q,
      "query Carriers",
      "carriers(first: 250)",
      {},
      "Carrier",
      list.carriers,
      list.total,
    );

    const tt = await rest(api, "PUT", "/api/configurations/transittime", {
      version: 0,
      calculationStrategy: "LATEST",
    });
    expect(tt.calculationStrategy).toBe("LATEST");
    await sameAsRest(
      q,
      "query TransitTime",
      "transitTimeConfiguration",
      {},
      "TransitTimeConfiguration",
      await rest(api, "GET", "/api/configurations/transittime"),
    );
  });

  /** An item return job with one item return (scannable codes, custom attributes), made once. */
  let returnJob: Promise<Json> | undefined;
  const itemReturnJob = () => {
    returnJob ??= (async () => {
      const job = await rest(api, "POST", "/api/itemreturnjobs", {
        originFacilityRefs: [facility.id],
        status: "OPEN",
        consumerAddresses: [{ ...facilityAddress, firstName: "Ada", lastName: "Lovelace" }],
        returnableLineItems: [
          { article: { tenantArticleId: "R-1", title: "Kettle" }, delivered: 2 },
          { article: { tenantArticleId: "R-2", title: "Toaster" }, delivered: 1 },
        ],
        tenantOrderId: "GQL-RET-1",
        scannableCodes: ["RET-GQL"],
      });
      await rest(api, "POST", `/api/itemreturnjobs/${job.id}/itemreturns`, {
        itemReturnJobVersion: job.version,
        itemReturnForCreation: {
          status: "OPEN",
          returnFacilityRef: facility.id,
          returnedLineItems: [{ itemReturnJobLineItemRef: job.returnableLineItems[0].id, status: "OPEN" }],
          scannableCodes: ["IR-GQL"],
          customAttributes: { bin: 7 },
        },
      });
      const read = await rest(api, "GET", `/api/itemreturnjobs/${job.id}`);
      expect(read.itemReturns).toHaveLength(1);
      return read as Json;
    })();
    return returnJob;
  };

  it("itemReturnJob with its itemReturns (every field REST answers) and originFacilities", async () => {
    const jobRead = await itemReturnJob();
    const facilityRead = await rest(api, "GET", `/api/facilities/${facility.id}`);
    const got = await sameAsRest(
      q,
      gql`query ReturnJob($id: ID!)`,
      "itemReturnJob(id: $id)",
      { id: jobRead.id },
      "ItemReturnJob",
      { ...jobRead, originFacilities: [facilityRead] },
    );
    expect(got.itemReturns.map((r: Json) => r.id)).toEqual([jobRead.itemReturns[0].id]);
  });

  it("itemReturnJobs; itemReturns; returnConfiguration; handoverConfiguration; refuseReasons; cancelationReason(s); rerouteDescription(s)", async () => {
    await itemReturnJob();
    // Every field of a job costs more than 50,000 over 250 of them: a page of 10.
    const jobs = await rest(api, "GET", "/api/itemreturnjobs?size=10");
    await sameListAsRest(
      q,
      "query ReturnJobs",
      "itemReturnJobs(first: 10)",
      {},
      "ItemReturnJob",
      jobs.itemReturnJobsWithSearchPaths ?? jobs.itemReturnJobs,
      jobs.total,
    );
    const returns = await rest(api, "GET", "/api/itemreturns?size=250");
    await sameListAsRest(
      q,
      "query Returns",
      "itemReturns(first: 250)",
      {},
      "ItemReturn",
      returns.itemReturns,
      returns.totalCount,
    );

    await rest(api, "PUT", "/api/configurations/return", {
      version: 0,
      active: true,
      allowTriggerRefund: true,
      returnTypeConfiguration: { type: "ITEM_RETURN" },
      availableReturnReasons: [{ reasonLocalized: { en_US: "Too small", de_DE: "Zu klein" } }],
      availableDecisionReasons: [{ reasonLocalized: { en_US: "Like new" } }],
      availableItemConditions: [{ conditionLocalized: { en_US: "Used" } }],
    });
    await sameAsRest(
      q,
      "query ReturnConfig",
      "returnConfiguration",
      {},
      "ReturnConfiguration",
      await rest(api, "GET", "/api/configurations/return"),
    );

    await rest(api, "PUT", "/api/configurations/handover", {
      version: 0,
      refusedReasons: [{ refusedReasonLocalized: { en_US: "Damaged", de_DE: "Beschädigt" }, active: true }],
    });
    await sameAsRest(
      q,
      "query HandoverConfig",
      "handoverConfiguration",
      {},
      "HandoverConfiguration",
      await rest(api, "GET", "/api/configurations/handover"),
    );
    await sameAsRest(
      q,
      "query RefuseReasons",
      "refuseReasons",
      {},
      "AvailableRefusedReason",
      await rest(api, "GET", "/api/configurations/handover/refusereasons"),
    );

    for (const k of [
      {
        path: "/api/cancelationreasons",
        one: "cancelationReason",
        many: "cancelationReasons",
        type: "CancelationReason",
      },
      {
        path: "/api/reroutedescriptions",
        one: "rerouteDescription",
        many: "rerouteDescriptions",
        type: "RerouteDescription",
      },
    ]) {
      const text = uniq("Changed mind");
      const reason = await rest(api, "POST", k.path, {
        reason: text,
        reasonLocalized: { en_US: text, de_DE: `${text} (de)` },
      });
      await sameAsRest(
        q,
        gql`query Reason($id: ID!)`,
        `${k.one}(id: $id)`,
        { id: reason.id },
        k.type,
        await rest(api, "GET", `${k.path}/${reason.id}`),
      );
      const list = await rest(api, "GET", `${k.path}?size=250`);
      await sameListAsRest(q, "query Reasons", `${k.many}(first: 250)`, {}, k.type, list.reasons, list.total);
    }
  });

  it("audits as the REST audit search", async () => {
    const cat = await rest(api, "POST", "/api/categories", { nameLocalized: { en_US: "Audited" } });
    await rest(api, "PUT", `/api/categories/${cat.id}`, {
      nameLocalized: { en_US: "Audited 2" },
      version: 1,
    });
    const query = { entityRef: { eq: cat.id } };
    const sort = [{ created: "ASC" }];
    const search = await eventually(async () => {
      const res = await rest(api, "POST", "/api/audits/search", {
        query,
        sort,
        options: { withTotal: true },
      });
      return res.audits.length >= 2 ? res : undefined;
    });
    await sameListAsRest(
      q,
      gql`query Audits($filter: AuditSearchQuery, $sort: [AuditSort!])`,
      "audits(filter: $filter, sort: $sort)",
      { filter: query, sort },
      "Audit",
      search.audits,
      search.total,
    );
  });

  it("notifications, notificationCenterConfig (tenant, facility by id and URN) as REST", async () => {
    const t = await tenant(uniq("gql-notify"));
    const tenantFacilityId = uniq("NC");
    const f = await rest(t.api, "POST", "/api/facilities", {
      name: "Notified",
      address: facilityAddress,
      tenantFacilityId,
    });
    await rest(t.api, "PUT", "/api/configurations/notifications", {
      channels: [{ type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] }],
    });
    await rest(t.api, "PUT", `/api/facilities/${f.id}/configurations/notifications`, {
      channels: [
        { type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] },
        {
          type: "EMAIL",
          enabled: true,
          events: ["ORDER_CANCELLED"],
          receiver: [{ email: "a@example.com", language: "en_US" }],
        },
      ],
    });
    const header = gql`query Config($facility: ID)`;
    await sameAsRest(
      t.q,
      header,
      "notificationCenterConfig(facility: $facility)",
      {},
      "NotificationCenterConfig",
      await rest(t.api, "GET", "/api/configurations/notifications"),
    );
    const facilityConfig = await rest(t.api, "GET", `/api/facilities/${f.id}/configurations/notifications`);
    expect(facilityConfig.channels).toHaveLength(2);
    for (const ref of [f.id, `urn:fft:facility:tenantFacilityId:${tenantFacilityId}`]) {
      await sameAsRest(
        t.q,
        header,
        "notificationCenterConfig(facility: $facility)",
        { facility: ref },
        "NotificationCenterConfig",
        facilityConfig,
      );
    }

    await rest(t.api, "POST", "/api/pickjobs", pickJobBody(f.id));
    const query = { facilityRef: { eq: f.id } };
    const sort = [{ created: "ASC" }];
    const search = await eventually(async () => {
      const res = await rest(t.api, "POST", "/api/notifications/search", {
        query,
        sort,
        options: { withTotal: true },
      });
      return res.notifications.length >= 2 ? res : undefined;
    });
    await sameListAsRest(
      t.q,
      gql`query Notifications($filter: NotificationSearchQuery, $sort: [NotificationSort!])`,
      "notifications(filter: $filter, sort: $sort)",
      { filter: query, sort },
      "Notification",
      search.notifications,
      search.total,
    );
  });

  it("subscription, subscriptions, deadLetters and supportedEvents as REST", async () => {
    const t = subs;
    const list = await rest(t.api, "GET", "/api/subscriptions");
    expect(list.subscriptions).toHaveLength(2);
    const down = list.subscriptions.find((x: Json) => x.id === subs.down)!;
    await sameAsRest(
      t.q,
      gql`query Subscription($id: ID!)`,
      "subscription(id: $id)",
      { id: down.id },
      "Subscription",
      await rest(t.api, "GET", `/api/subscriptions/${down.id}`),
    );
    const conn = await sameListAsRest(
      t.q,
      "query Subscriptions",
      "subscriptions(first: 10)",
      {},
      "Subscription",
      list.subscriptions,
      list.total,
    );
    expect(conn.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false });
    const one = ok(
      await t.q(
        gql`query { subscriptions(first: 1) { totalCount edges { node { id } } pageInfo { hasNextPage } } }`,
      ),
    );
    expect(one.subscriptions).toEqual({
      totalCount: 2,
      edges: [{ node: { id: list.subscriptions[0].id } }],
      pageInfo: { hasNextPage: true },
    });

    // The category created in beforeAll could not be delivered (nothing listens on port 9): a dead letter.
    const dead = await eventually(
      async () => {
        const res = await rest(t.api, "GET", `/api/subscriptions/${down.id}/deadletters`);
        return res.total >= 1 ? res : undefined;
      },
      20_000,
      200,
    );
    await sameListAsRest(
      t.q,
      gql`query Dead($id: ID!)`,
      "deadLetters(subscriptionId: $id, first: 10)",
      { id: down.id },
      "DeadLetter",
      dead.deadLetters,
      dead.total,
    );

    const events = (await rest(t.api, "GET", "/api/supportedevents")).events;
    expect(events.length).toBeGreaterThan(10);
    const got = ok(await t.q(gql`query Events { supportedEvents { event description } }`));
    expect(got.supportedEvents).toEqual(
      events.map((e: Json) => ({ event: e.event, description: e.description })),
    );
  });
});

// --- 2. connections ---------------------------------------------------------------------------------

describe("connections page like the REST search and lists", () => {
  const N = 120;
  let t: Awaited<ReturnType<typeof tenant>>;

  beforeAll(async () => {
    t = await tenant(uniq("gql-paging"));
    for (let i = 0; i < N; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, N - i) }, (_, j) =>
          rest(t.api, "POST", "/api/categories", {
            // Names in an order other than creation's.
            nameLocalized: { en_US: `N-${String(((i + j) * 37) % N).padStart(3, "0")}` },
          }),
        ),
      );
    }
  });

  /** The REST search's order (one page of 250). */
  async function restOrder(sort?: Json[]): Promise<string[]> {
    const res = await rest(t.api, "POST", "/api/categories/search", {
      query: {},
      size: 250,
      ...(sort ? { sort } : {}),
    });
    expect(res.categories).toHaveLength(N);
    return res.categories.map((c: Json) => c.id);
  }

  const PAGE = gql`
    query Page($first: Int, $after: String, $last: Int, $before: String, $sort: [CategorySort!]) {
      categories(first: $first, after: $after, last: $last, before: $before, sort: $sort) {
        totalCount
        edges { cursor node { id } }
        pageInfo { startCursor endCursor hasNextPage hasPreviousPage }
      }
    }
  `;
  async function page(vars: Json) {
    const conn = ok(await t.q(PAGE, vars)).categories;
    expect(conn.totalCount).toBe(N);
    if (conn.edges.length > 0) {
      expect(conn.pageInfo.startCursor).toBe(conn.edges[0].cursor);
      expect(conn.pageInfo.endCursor).toBe(conn.edges.at(-1).cursor);
    }
    return conn as {
      edges: { cursor: string; node: { id: string } }[];
      pageInfo: { startCursor: string; endCursor: string; hasNextPage: boolean; hasPreviousPage: boolean };
    };
  }

  for (const sort of [undefined, [{ name: "DESC" }], [{ created: "DESC" }], [{ name: "ASC" }]]) {
    it(`pages forward (first: 50) and backward (last: 50) over ${N} categories in the REST order, sort ${JSON.stringify(sort ?? "default")}`, async () => {
      const expected = await restOrder(sort);
      const forward: string[] = [];
      let conn = await page({ first: 50, sort });
      expect(conn.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
      forward.push(...conn.edges.map((e) => e.node.id));
      for (let guard = 0; conn.pageInfo.hasNextPage && guard < 10; guard++) {
        conn = await page({ first: 50, after: conn.pageInfo.endCursor, sort });
        expect(conn.pageInfo.hasPreviousPage).toBe(true);
        forward.push(...conn.edges.map((e) => e.node.id));
      }
      expect(conn.pageInfo.hasNextPage).toBe(false);
      expect(conn.edges).toHaveLength(N % 50);
      expect(forward).toEqual(expected);

      const backward: string[] = [];
      conn = await page({ last: 50, sort });
      expect(conn.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      backward.unshift(...conn.edges.map((e) => e.node.id));
      for (let guard = 0; conn.pageInfo.hasPreviousPage && guard < 10; guard++) {
        conn = await page({ last: 50, before: conn.pageInfo.startCursor, sort });
        expect(conn.pageInfo.hasNextPage).toBe(true);
        backward.unshift(...conn.edges.map((e) => e.node.id));
      }
      expect(conn.pageInfo.hasPreviousPage).toBe(false);
      expect(backward).toEqual(expected);
    });
  }

  it("every edge's cursor resumes right after (before) its item; totalCount counts the filter's matches", async () => {
    const sort = [{ name: "ASC" }];
    const expected = await restOrder(sort);
    const first = await page({ first: 50, sort });
    for (const i of [0, 17, 48, 49]) {
      const next = await page({ first: 5, after: first.edges[i]!.cursor, sort });
      expect(
        next.edges.map((e) => e.node.id),
        `after edge ${i}`,
      ).toEqual(expected.slice(i + 1, i + 6));
    }
    for (const i of [5, 30, 49]) {
      const prev = await page({ last: 5, before: first.edges[i]!.cursor, sort });
      expect(
        prev.edges.map((e) => e.node.id),
        `before edge ${i}`,
      ).toEqual(expected.slice(i - 5, i));
    }
    const ids = expected.slice(10, 13);
    const filtered = ok(
      await t.q(
        gql`query Some($filter: CategorySearchQuery) { categories(filter: $filter) { totalCount edges { node { id } } } }`,
        { filter: { id: { in: ids } } },
      ),
    ).categories;
    expect(filtered.totalCount).toBe(3);
    expect(filtered.edges.map((e: Json) => e.node.id).sort()).toEqual([...ids].sort());
    // Without first/last: the REST default page (20).
    const defaults = ok(
      await t.q(gql`query { categories { edges { node { id } } pageInfo { hasNextPage } } }`),
    );
    expect(defaults.categories.edges.map((e: Json) => e.node.id)).toEqual((await restOrder()).slice(0, 20));
    expect(defaults.categories.pageInfo.hasNextPage).toBe(true);
  });

  it("a list connection (facilities) pages forward over 30 items in GET /api/facilities' order", async () => {
    const f = await tenant(uniq("gql-facilities"));
    for (let i = 0; i < 30; i += 15) {
      await Promise.all(
        Array.from({ length: 15 }, (_, j) =>
          rest(f.api, "POST", "/api/facilities", { name: `F${i + j}`, address: facilityAddress }),
        ),
      );
    }
    const expected = (await rest(f.api, "GET", "/api/facilities?size=250")).facilities.map((x: Json) => x.id);
    expect(expected).toHaveLength(30);
    const PAGE_F = gql`
      query Facilities($first: Int, $after: String) {
        facilities(first: $first, after: $after) {
          totalCount
          edges { cursor node { id } }
          pageInfo { startCursor endCursor hasNextPage hasPreviousPage }
        }
      }
    `;
    const got: string[] = [];
    let conn = ok(await f.q(PAGE_F, { first: 10 })).facilities;
    expect(conn.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    got.push(...conn.edges.map((e: Json) => e.node.id));
    while (conn.pageInfo.hasNextPage && got.length < 100) {
      conn = ok(await f.q(PAGE_F, { first: 10, after: conn.pageInfo.endCursor })).facilities;
      expect(conn.pageInfo.hasPreviousPage).toBe(true);
      expect(conn.totalCount).toBe(30);
      got.push(...conn.edges.map((e: Json) => e.node.id));
    }
    expect(got).toEqual(expected);
    // An edge's cursor resumes right after it.
    const mid = ok(await f.q(PAGE_F, { first: 25 })).facilities;
    expect(mid.edges.map((e: Json) => e.node.id)).toEqual(expected.slice(0, 25));
    expect(mid.pageInfo.hasNextPage).toBe(true);
    const resumed = ok(await f.q(PAGE_F, { first: 3, after: mid.edges[6].cursor })).facilities;
    expect(resumed.edges.map((e: Json) => e.node.id)).toEqual(expected.slice(7, 10));
    // The default page: 25.
    const defaults = ok(await f.q(PAGE_F, {})).facilities;
    expect(defaults.edges.map((e: Json) => e.node.id)).toEqual(expected.slice(0, 25));
    expect(defaults.pageInfo.hasNextPage).toBe(true);
  });

  it("a list connection's biggest page (first: 250) says whether more follow", async () => {
    const s = await tenant(uniq("gql-stacks"));
    for (let i = 0; i < 251; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, 251 - i) }, () =>
          rest(s.api, "POST", "/api/stacks", { facilityRefs: [], processRefs: [] }),
        ),
      );
    }
    const STACKS = gql`
      query Stacks($after: String) {
        stacks(first: 250, after: $after) { totalCount edges { node { id } } pageInfo { endCursor hasNextPage } }
      }
    `;
    const full = ok(await s.q(STACKS, {})).stacks;
    expect(full.totalCount).toBe(251);
    expect(full.edges).toHaveLength(250);
    const rest1 = ok(await s.q(STACKS, { after: full.pageInfo.endCursor })).stacks;
    expect(rest1.edges).toHaveLength(1);
    expect(rest1.pageInfo.hasNextPage).toBe(false);
    // 251 stacks, 250 shown: one more follows.
    expect(full.pageInfo.hasNextPage).toBe(true);
  });
});

// --- 3. GET --------------------------------------------------------------------------------------------

describe("GET /graphql", () => {
  it("answers a query with variables, through the client and as a plain URL; refuses a mutation (nothing created)", async () => {
    const cat = await rest(api, "POST", "/api/categories", { nameLocalized: { en_US: "Gotten" } });
    const query = gql`query Get($id: ID!) { category(id: $id) { id nameLocalized version } }`;
    const viaGet = await graphqlClient(sys, tokenA, { method: "GET" })(query, { id: cat.id });
    expect(ok(viaGet).category).toEqual({ id: cat.id, nameLocalized: { en_US: "Gotten" }, version: 1 });

    const url = `${sys.baseUrl}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ id: cat.id }))}`;
    const plain = await fetch(url, { headers: { authorization: `Bearer ${tokenA}` } });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({
      data: { category: { id: cat.id, nameLocalized: { en_US: "Gotten" }, version: 1 } },
    });

    const name = uniq("Via GET");
    const mutation = gql`mutation M($input: CategoryForCreationInput!) { createCategory(input: $input) { id } }`;
    const refused = await fetch(
      `${sys.baseUrl}/graphql?query=${encodeURIComponent(mutation)}&variables=${encodeURIComponent(JSON.stringify({ input: { nameLocalized: { en_US: name } } }))}`,
      { headers: { authorization: `Bearer ${tokenA}` } },
    );
    expect(refused.status).toBe(405);
    const body = (await refused.json()) as Json;
    expect(body.errors[0].extensions.code).toBe("METHOD_NOT_ALLOWED");
    expect(await categoriesNamed(name)).toBe(0);
  });
});

// --- 4. semantic nullability --------------------------------------------------------------------------

describe("a failing field is null, explained by an error at its path; its siblings stay", () => {
  it("pickJob's facility without FACILITY_READ: null + PERMISSION_DENIED at [pickJob, facility]", async () => {
    const job = await rest(api, "POST", "/api/pickjobs", pickJobBody(facility.id));
    const reader = graphqlClient(sys, await sys.token(TENANT_A, { permissions: ["PICKJOB_READ"] }));
    const r = await reader(gql`query J($id: ID!) { pickJob(id: $id) { id status facility { id } } }`, {
      id: job.id,
    });
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ pickJob: { id: job.id, status: "OPEN", facility: null } });
    const e = oneError(r, "PERMISSION_DENIED", 403, ["pickJob", "facility"]);
    expect(e.extensions.kind).toBe("FORBIDDEN");
  });

  it("a root field that fails (unknown category) next to one that succeeds (facilities)", async () => {
    const r = await q(
      gql`query Two($id: ID!) { category(id: $id) { id } facilities(first: 250) { edges { node { id } } } }`,
      { id: UNKNOWN },
    );
    expect(r.status).toBe(200);
    expect(r.data?.category).toBeNull();
    const restIds = (await rest(api, "GET", "/api/facilities?size=250")).facilities.map((f: Json) => f.id);
    expect(r.data?.facilities.edges.map((e: Json) => e.node.id)).toEqual(restIds);
    const e = oneError(r, "CATEGORY_NOT_FOUND", 404, ["category"]);
    expect(e.extensions.kind).toBe("NOT_FOUND");
  });
});

// --- 5. X-User-Agent ----------------------------------------------------------------------------------

describe("X-User-Agent", () => {
  const serverSpan = (traceId: string) =>
    eventually(async () =>
      spansOf(traceId).find((s) => s.kind === SpanKind.SERVER && s.name.includes("/graphql")),
    );

  it("well-formed: on the gateway's span, and the mutation's audit record names it (client.api GRAPHQL)", async () => {
    const name = uniq("Agent");
    const r = await q(
      gql`mutation Create($input: CategoryForCreationInput!) { createCategory(input: $input) { id } }`,
      { input: { nameLocalized: { en_US: name } } },
      { "X-User-Agent": "PickApp/1.2.3" },
    );
    const id = ok(r).createCategory.id;
    expect(r.traceId).toMatch(/^[0-9a-f]{32}$/);
    const span = await serverSpan(r.traceId);
    expect(span.attributes).toMatchObject({
      "fop.client.app.name": "PickApp",
      "fop.client.app.version": "1.2.3",
    });
    const audit = await eventually(async () => {
      const a = ok(
        await q(
          gql`query A($ref: String) { audits(filter: {entityRef: {eq: $ref}}) { edges { node { entityRef operation { name } client { api rawInfo } } } } }`,
          { ref: id },
        ),
      );
      return a.audits.edges[0]?.node;
    });
    expect(audit).toMatchObject({ entityRef: id, client: { api: "GRAPHQL", rawInfo: "PickApp/1.2.3" } });
  });

  it("absent or malformed (never rejected): 200 and no client attributes on the span", async () => {
    const cases: [string, Record<string, string>][] = [
      ["absent", {}],
      ["words", { "X-User-Agent": "not a valid agent" }],
      ["no version", { "X-User-Agent": "App/" }],
      ["500 chars", { "X-User-Agent": `${"A".repeat(250)}/${"1".repeat(249)}` }],
    ];
    for (const [label, headers] of cases) {
      const r = await q(gql`query F($id: ID!) { facility(id: $id) { id } }`, { id: facility.id }, headers);
      expect(r.status, label).toBe(200);
      expect(ok(r).facility, label).toEqual({ id: facility.id });
      const span = await serverSpan(r.traceId);
      expect(span.attributes["fop.client.app.name"], label).toBeUndefined();
      expect(span.attributes["fop.client.app.version"], label).toBeUndefined();
    }
  });
});

// --- 6. 401 / 403 ---------------------------------------------------------------------------------------

describe("401 and 403 like REST", () => {
  const QUERY = gql`query F { facilities(first: 1) { totalCount } }`;

  it("no Authorization: 401 MISSING_TOKEN (POST and GET)", async () => {
    const r = await graphqlClient(sys)(QUERY);
    expect(r.status).toBe(401);
    expect(r.data ?? null).toBeNull();
    expect(r.errors[0]?.extensions).toMatchObject({ code: "MISSING_TOKEN", status: 401 });
    const viaGet = await fetch(`${sys.baseUrl}/graphql?query=${encodeURIComponent(QUERY)}`);
    expect(viaGet.status).toBe(401);
    expect(((await viaGet.json()) as Json).errors[0].extensions.code).toBe("MISSING_TOKEN");
  });

  it("a garbage or expired token: 401 with the code REST answers", async () => {
    const expired = await sys.token(TENANT_A, { expiresIn: -120 });
    for (const [label, token] of [
      ["garbage", "garbage.token.here"],
      ["expired", expired],
    ] as const) {
      const viaRest = await sys.api("GET", "/api/facilities", { token });
      expect(viaRest.status, label).toBe(401);
      const r = await graphqlClient(sys, token)(QUERY);
      expect(r.status, label).toBe(401);
      expect(r.errors[0]?.extensions, label).toMatchObject({ code: viaRest.body[0].code, status: 401 });
    }
  });

  it("without CATEGORY_READ: category null + PERMISSION_DENIED (403)", async () => {
    const cat = await rest(api, "POST", "/api/categories", { nameLocalized: { en_US: "Secret" } });
    const c = graphqlClient(sys, await sys.token(TENANT_A, { permissions: ["FACILITY_READ"] }));
    const r = await c(gql`query C($id: ID!) { category(id: $id) { id } }`, { id: cat.id });
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ category: null });
    oneError(r, "PERMISSION_DENIED", 403, ["category"]);
  });

  it("without CATEGORY_WRITE: createCategory null + PERMISSION_DENIED (403), nothing created", async () => {
    const c = graphqlClient(
      sys,
      await sys.token(TENANT_A, { permissions: ["CATEGORY_READ", "ADMIN_MODULES_READ"] }),
    );
    const name = uniq("Forbidden");
    const r = await c(
      gql`mutation M($input: CategoryForCreationInput!) { createCategory(input: $input) { id } }`,
      {
        input: { nameLocalized: { en_US: name } },
      },
    );
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ createCategory: null });
    oneError(r, "PERMISSION_DENIED", 403, ["createCategory"]);
    expect(await categoriesNamed(name)).toBe(0);
  });
});

// --- 7. tenant isolation ---------------------------------------------------------------------------------

describe("tenant isolation", () => {
  it("B's connections never show A's nodes; A's ids as B are NOT_FOUND", async () => {
    const mk = async (as: Api) => {
      const f = await rest(as, "POST", "/api/facilities", { name: "Iso", address: facilityAddress });
      const job = await rest(as, "POST", "/api/pickjobs", pickJobBody(f.id));
      const cat = await rest(as, "POST", "/api/categories", { nameLocalized: { en_US: "Iso" } });
      return { facility: f.id, job: job.id, category: cat.id };
    };
    const a = await mk(api);
    const b = await mk(apiB);
    // Both audits exist (the audit log is eventually consistent) before comparing.
    for (const [as, ref] of [
      [api, a.category],
      [apiB, b.category],
    ] as const) {
      await eventually(async () => {
        const res = await rest(as, "POST", "/api/audits/search", { query: { entityRef: { eq: ref } } });
        return res.audits.length > 0;
      });
    }
    const ALL = gql`
      query All {
        categories(first: 250) { edges { node { id } } }
        pickJobs(first: 250) { edges { node { id } } }
        facilities(first: 250) { edges { node { id } } }
        audits(first: 250) { edges { node { id entityRef } } }
      }
    `;
    const ids = (conn: Json) => conn.edges.map((e: Json) => e.node.id).sort();
    const asB = ok(await qB(ALL));
    const asA = ok(await q(ALL));
    const restB = {
      categories: (await rest(apiB, "POST", "/api/categories/search", { query: {}, size: 250 })).categories,
      pickJobs: (await rest(apiB, "POST", "/api/pickjobs/search", { query: {}, size: 250 })).pickJobs,
      facilities: (await rest(apiB, "GET", "/api/facilities?size=250")).facilities,
      audits: (await rest(apiB, "POST", "/api/audits/search", { query: {}, size: 250 })).audits,
    };
    for (const key of ["categories", "pickJobs", "facilities", "audits"] as const) {
      expect(ids(asB[key]), key).toEqual(restB[key].map((x: Json) => x.id).sort());
      const mine = new Set(ids(asB[key]));
      expect(
        ids(asA[key]).filter((id: string) => mine.has(id)),
        `${key}: A's ids in B's connection`,
      ).toEqual([]);
    }
    expect(ids(asB.categories)).toContain(b.category);
    expect(ids(asB.categories)).not.toContain(a.category);
    expect(ids(asB.pickJobs)).toContain(b.job);
    expect(ids(asB.pickJobs)).not.toContain(a.job);
    expect(ids(asB.facilities)).toContain(b.facility);
    expect(ids(asB.facilities)).not.toContain(a.facility);
    const refsB = asB.audits.edges.map((e: Json) => e.node.entityRef);
    expect(refsB).toContain(b.category);
    expect(refsB).not.toContain(a.category);
    expect(refsB).not.toContain(a.job);

    for (const [field, id] of [
      ["category", a.category],
      ["pickJob", a.job],
      ["facility", a.facility],
      ["facility", "urn:fft:facility:tenantFacilityId:GQL-F1"],
    ] as const) {
      const r = await qB(`query One($id: ID!) { ${field}(id: $id) { id } }`, { id });
      expect(r.status, field).toBe(200);
      expect(r.data, field).toEqual({ [field]: null });
      const e = oneError(r, /_NOT_FOUND$/, 404, [field]);
      expect(e.extensions.kind, field).toBe("NOT_FOUND");
    }
    // B's own pick job resolves B's facility.
    const own = ok(await qB(gql`query J($id: ID!) { pickJob(id: $id) { facility { id } } }`, { id: b.job }));
    expect(own.pickJob.facility.id).toBe(b.facility);
  });
});

// --- 9. batching + the bench's view query -----------------------------------------------------------------

describe("relationships are batched: one RPC per relationship and level", () => {
  let store: string;
  let jobs: Json[];
  let unitsOf: Map<string, string[]>;
  let stackOf: Map<string, string | null>;

  beforeAll(async () => {
    store = (await rest(api, "POST", "/api/facilities", { name: "Batch store", address: facilityAddress }))
      .id;
    const stacks = [
      (await rest(api, "POST", "/api/stacks", { facilityRefs: [store], processRefs: [] })).id,
      (await rest(api, "POST", "/api/stacks", { facilityRefs: [store], processRefs: [] })).id,
    ];
    jobs = [];
    unitsOf = new Map();
    stackOf = new Map();
    for (let i = 0; i < 5; i++) {
      const job = await rest(api, "POST", "/api/pickjobs", pickJobBody(store, { orderRef: `ORDER-${i}` }));
      jobs.push(job);
      const units: string[] = [];
      for (let u = 0; u < 2; u++) {
        const stackRef = u === 0 && i < 2 ? stacks[i] : undefined;
        const unit = await rest(api, "POST", `/api/pickjobs/${job.id}/loadunits`, {
          codes: [`LU-${i}-${u}`],
          ...(stackRef ? { stackRef } : {}),
        });
        units.push(unit.id);
        stackOf.set(unit.id, stackRef ?? null);
      }
      unitsOf.set(job.id, units);
    }
  });

  it("5 pick jobs with facility and load units with stacks: 1 search, 1 facility batch, 1 load unit batch, ≤1 stack batch", async () => {
    const r = await q(
      gql`
        query Batched($f: String!) {
          pickJobs(first: 5, filter: {facilityRef: {eq: $f}}) {
            edges { node { id facility { id } loadUnits { id stack { id } } } }
          }
        }
      `,
      { f: store },
    );
    const data = ok(r);
    const nodes = data.pickJobs.edges.map((e: Json) => e.node);
    expect(nodes.map((n: Json) => n.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    for (const n of nodes) {
      expect(n.facility).toEqual({ id: store });
      expect(n.loadUnits.map((u: Json) => u.id).sort(), n.id).toEqual([...unitsOf.get(n.id)!].sort());
      for (const u of n.loadUnits) {
        const s = stackOf.get(u.id);
        expect(u.stack, u.id).toEqual(s ? { id: s } : null);
      }
    }
    const calls = await eventually(async () => {
      const c = rpcCalls(r.traceId);
      return callsOf(c, "SearchPickJobs") > 0 ? c : undefined;
    });
    expect(callsOf(calls, "SearchPickJobs"), JSON.stringify(calls)).toBe(1);
    expect(callsOf(calls, "BatchGetFacilities"), JSON.stringify(calls)).toBe(1);
    expect(callsOf(calls, "ListLoadUnitsOfPickJobs"), JSON.stringify(calls)).toBe(1);
    expect(callsOf(calls, "BatchGetStacks"), JSON.stringify(calls)).toBeLessThanOrEqual(1);
    expect(callsOf(calls, "GetFacility"), JSON.stringify(calls)).toBe(0);
    expect(callsOf(calls, "GetStack"), JSON.stringify(calls)).toBe(0);
    expect(callsOf(calls, "GetPickJob"), JSON.stringify(calls)).toBe(0);
  });

  it("the bench's view query passes the default limits and answers what REST answers", async () => {
    const r = await q(
      gql`
        query View($f: String!) {
          pickJobs(first: 20, filter: {facilityRef: {eq: $f}, status: {eq: OPEN}}) {
            edges { node {
              id status orderRef
              pickLineItems { id quantity picked status article { tenantArticleId title imageUrl } }
              loadUnits { id status stack { id } }
            } }
          }
        }
      `,
      { f: store },
    );
    const data = ok(r);
    const search = await rest(api, "POST", "/api/pickjobs/search", {
      query: { facilityRef: { eq: store }, status: { eq: "OPEN" } },
      size: 20,
    });
    expect(search.pickJobs).toHaveLength(5);
    const nodes = data.pickJobs.edges.map((e: Json) => e.node);
    expect(nodes.map((n: Json) => n.id)).toEqual(search.pickJobs.map((j: Json) => j.id));
    for (const [i, n] of nodes.entries()) {
      const j = search.pickJobs[i];
      expect(n).toMatchObject({ status: "OPEN", orderRef: j.orderRef });
      expect(n.pickLineItems).toEqual(
        j.pickLineItems.map((l: Json) => ({
          id: l.id,
          quantity: l.quantity,
          picked: l.picked,
          status: l.status,
          article: {
            tenantArticleId: l.article.tenantArticleId,
            title: l.article.title,
            imageUrl: l.article.imageUrl ?? null,
          },
        })),
      );
      const units = (await rest(api, "GET", `/api/pickjobs/${n.id}/loadunits`)).loadUnits;
      expect(n.loadUnits).toEqual(
        units.map((u: Json) => ({
          id: u.id,
          status: u.status,
          stack: u.stackRef ? { id: u.stackRef } : null,
        })),
      );
    }
  });
});

// --- 10. stale versions ---------------------------------------------------------------------------------

describe("a mutation on a stale version", () => {
  it("replaceCategory: null + VERSION_CONFLICT (409) with both versions; the category unchanged", async () => {
    const cat = await rest(api, "POST", "/api/categories", { nameLocalized: { en_US: "Versioned" } });
    await rest(api, "PUT", `/api/categories/${cat.id}`, {
      nameLocalized: { en_US: "Versioned 2" },
      version: 1,
    });
    const before = await rest(api, "GET", `/api/categories/${cat.id}`);
    const r = await q(
      gql`mutation R($id: ID!, $input: CategoryForUpdateInput!) { replaceCategory(id: $id, input: $input) { id version } }`,
      { id: cat.id, input: { nameLocalized: { en_US: "Lost update" }, version: 1 } },
    );
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ replaceCategory: null });
    const e = oneError(r, "VERSION_CONFLICT", 409, ["replaceCategory"]);
    expect(e.extensions).toMatchObject({ requestVersion: 1, version: 2 });
    expect(await rest(api, "GET", `/api/categories/${cat.id}`)).toEqual(before);
  });

  it("pickJobAction: null + VERSION_CONFLICT (409) with both versions; the pick job unchanged", async () => {
    const job = await rest(api, "POST", "/api/pickjobs", pickJobBody(facility.id));
    await rest(api, "POST", `/api/pickjobs/${job.id}/actions`, { name: "START", version: 1 });
    const before = await rest(api, "GET", `/api/pickjobs/${job.id}`);
    const r = await q(
      gql`mutation A($id: ID!, $action: PickJobActionsParameterInput!) { pickJobAction(id: $id, action: $action) { id status } }`,
      { id: job.id, action: { name: "PAUSE", version: 1 } },
    );
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ pickJobAction: null });
    const e = oneError(r, "VERSION_CONFLICT", 409, ["pickJobAction"]);
    expect(e.extensions).toMatchObject({ requestVersion: 1, version: 2 });
    expect(await rest(api, "GET", `/api/pickjobs/${job.id}`)).toEqual(before);
  });
});

// --- 11. errors --------------------------------------------------------------------------------------------

describe("errors", () => {
  it("a syntax error: 400 GRAPHQL_PARSE_FAILED", async () => {
    const r = await q("query { categories(first: 1) { edges { node { id } } }");
    expect(r.status).toBe(400);
    expect(r.data ?? null).toBeNull();
    expect(r.errors[0]?.extensions).toMatchObject({ code: "GRAPHQL_PARSE_FAILED", status: 400 });
  });

  it("an unknown field: 400 GRAPHQL_VALIDATION_FAILED naming it", async () => {
    const r = await q(gql`query { categories(first: 1) { edges { node { id colour } } } }`);
    expect(r.status).toBe(400);
    expect(r.data ?? null).toBeNull();
    expect(r.errors[0]?.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED", status: 400 });
    expect(r.errors[0]?.message).toContain("colour");
  });

  it("first over the limit (with a filter): the field null, a 400-status error naming first", async () => {
    const r = await q(
      gql`query Big($filter: CategorySearchQuery) { categories(filter: $filter, first: 251) { edges { node { id } } } }`,
      { filter: { name: { like: "x" } } },
    );
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ categories: null });
    const e = oneError(r, /./, 400, ["categories"]);
    expect(e.extensions.field).toBe("first");
    expect(e.message).toContain("first");
  });

  it("a bad filter value: the field null, VALIDATION_FAILED (400) naming filter", async () => {
    const r = await q(
      gql`query Bad($filter: CategorySearchQuery) { categories(filter: $filter) { totalCount } }`,
      {
        filter: { customAttributes: { rank: { bogus: 1 } } },
      },
    );
    expect(r.data).toEqual({ categories: null });
    const e = oneError(r, "VALIDATION_FAILED", 400, ["categories"]);
    expect(e.extensions.field).toBe("filter");
  });

  it("an invalid cursor: INVALID_CURSOR (400) naming after, on search and list connections", async () => {
    for (const field of ["categories", "facilities"]) {
      const r = await q(
        `query Cursor($after: String) { ${field}(after: $after) { edges { node { id } } } }`,
        {
          after: "bm90LWEtY3Vyc29y",
        },
      );
      expect(r.data, field).toEqual({ [field]: null });
      const e = oneError(r, "INVALID_CURSOR", 400, [field]);
      expect(e.extensions.field, field).toBe("after");
    }
  });
});

// --- 1 (last). the coverage check ---------------------------------------------------------------------------

describe("coverage", () => {
  it("the tests above called every root field of schema.graphql's Query and Mutation (and got a value)", () => {
    expect([...covered.Query].sort()).toEqual(rootFields("Query"));
    expect([...covered.Mutation].sort()).toEqual(rootFields("Mutation"));
  });
});
