/**
 * /graphql's depth and cost limits (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_COMPLEXITY), on a system with
 * tight ones (6 and 2000): a document over either is refused with 400 and its code before any
 * resolver runs (no RPC in its trace), also when the depth hides in fragments, the cost in
 * variables or in aliases, and over GET; one within both runs. (The defaults let the bench's view
 * query through: graphql.test.ts.) Every check before the resolvers is linear in the document: a
 * fragment fan-out of 2^31 paths is answered in milliseconds, and nobody else waits for it.
 */
import { SpanKind } from "@opentelemetry/api";
import { gql } from "graphql-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type Gql, type GqlResult, graphqlClient, rpcCalls, spansOf } from "../../support/graphql.ts";
import { fragmentFanOut } from "../../support/hostile.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

type Json = Record<string, any>;

const MAX_DEPTH = 6;
const MAX_COMPLEXITY = 2000;

let sys: System;
let token: string;
let q: Gql;
let facilityId: string;
let jobIds: string[];

beforeAll(async () => {
  sys = await startSystem({
    gatewayEnv: { GRAPHQL_MAX_DEPTH: String(MAX_DEPTH), GRAPHQL_MAX_COMPLEXITY: String(MAX_COMPLEXITY) },
  });
  token = await sys.token("gql-limits");
  q = graphqlClient(sys, token);
  const api = sys.as(token);
  const f = await api("POST", "/api/facilities", { name: "Limits store", address: facilityAddress });
  expect(f.status, f.text).toBe(201);
  facilityId = f.body.id;
  jobIds = [];
  for (let i = 0; i < 3; i++) {
    const job = await api("POST", "/api/pickjobs", pickJobBody(facilityId));
    expect(job.status, job.text).toBe(201);
    jobIds.push(job.body.id);
    const unit = await api("POST", `/api/pickjobs/${job.body.id}/loadunits`, { codes: [`LU-${i}`] });
    expect(unit.status, unit.text).toBe(201);
  }
});
afterAll(() => sys?.close());

/** The request's trace reached the gateway (its server span), and no RPC client span is in it. */
async function noResolverRan(r: GqlResult) {
  expect(r.traceId).toMatch(/^[0-9a-f]{32}$/);
  await eventually(async () => spansOf(r.traceId).some((s) => s.kind === SpanKind.SERVER));
  expect(rpcCalls(r.traceId)).toEqual({});
}

/** Refused before execution: 400, no data, one error with `code`. */
function refused(r: GqlResult, code: string) {
  expect(r.status, JSON.stringify(r.errors)).toBe(400);
  expect(r.data ?? null).toBeNull();
  expect(r.errors, JSON.stringify(r.errors)).toHaveLength(1);
  expect(r.errors[0]!.extensions, JSON.stringify(r.errors)).toMatchObject({ code, status: 400 });
  return r.errors[0]!;
}

/** Depth 7: pickJobs > edges > node > loadUnits > stack > facilities > id. */
const TOO_DEEP = gql`
  query Deep($f: String!) {
    pickJobs(first: 1, filter: {facilityRef: {eq: $f}}) {
      edges { node { loadUnits { stack { facilities { id } } } } }
    }
  }
`;
/** Depth 6: one level less. */
const DEEP_ENOUGH = gql`
  query Deep($f: String!) {
    pickJobs(first: 3, filter: {facilityRef: {eq: $f}}) {
      edges { node { loadUnits { stack { id } } } }
    }
  }
`;

describe("depth", () => {
  it(`deeper than ${MAX_DEPTH}: 400 QUERY_TOO_DEEP, no resolver ran`, async () => {
    const r = await q(TOO_DEEP, { f: facilityId });
    refused(r, "QUERY_TOO_DEEP");
    await noResolverRan(r);
  });

  it("the depth counts through fragments and inline fragments", async () => {
    const r = await q(
      gql`
        query Deep($f: String!) { pickJobs(first: 1, filter: {facilityRef: {eq: $f}}) { ...Edges } }
        fragment Edges on PickJobConnection { edges { node { ... on PickJob { loadUnits { ...Unit } } } } }
        fragment Unit on LoadUnit { stack { facilities { id } } }
      `,
      { f: facilityId },
    );
    refused(r, "QUERY_TOO_DEEP");
    await noResolverRan(r);
  });

  it("fragments neither hide depth nor add to it: exactly 6 through fragments runs", async () => {
    const r = await q(
      gql`
        query Deep($f: String!) { pickJobs(first: 3, filter: {facilityRef: {eq: $f}}) { ...Edges } }
        fragment Edges on PickJobConnection { edges { node { ... on PickJob { loadUnits { ...Unit } } } } }
        fragment Unit on LoadUnit { stack { id } }
      `,
      { f: facilityId },
    );
    expect(r.errors, JSON.stringify(r.errors)).toEqual([]);
    expect(r.data.pickJobs.edges).toHaveLength(3);
  });

  it("over GET too", async () => {
    const r = await graphqlClient(sys, token, { method: "GET" })(TOO_DEEP, { f: facilityId });
    refused(r, "QUERY_TOO_DEEP");
    await noResolverRan(r);
  });

  it(`exactly ${MAX_DEPTH} deep: runs`, async () => {
    const r = await q(DEEP_ENOUGH, { f: facilityId });
    expect(r.errors, JSON.stringify(r.errors)).toEqual([]);
    expect(r.status).toBe(200);
    const nodes = r.data.pickJobs.edges.map((e: Json) => e.node);
    expect(nodes).toHaveLength(3);
    for (const n of nodes) expect(n.loadUnits).toEqual([{ stack: null }]);
  });
});

describe("cost", () => {
  const HEAVY = gql`
    query Heavy($f: String!, $n: Int) {
      pickJobs(first: $n, filter: {facilityRef: {eq: $f}}) {
        edges { node { pickLineItems { article { title } } loadUnits { id } } }
      }
    }
  `;

  it(`pickJobs(first: 250) with line items and load units costs more than ${MAX_COMPLEXITY}: 400 QUERY_TOO_COMPLEX naming the limit, no resolver ran`, async () => {
    const r = await q(
      gql`
        query Heavy($f: String!) {
          pickJobs(first: 250, filter: {facilityRef: {eq: $f}}) {
            edges { node { pickLineItems { article { title } } loadUnits { id } } }
          }
        }
      `,
      { f: facilityId },
    );
    const e = refused(r, "QUERY_TOO_COMPLEX");
    expect(e.message).toContain(String(MAX_COMPLEXITY));
    await noResolverRan(r);
  });

  it("the page size from a variable counts", async () => {
    const r = await q(HEAVY, { f: facilityId, n: 250 });
    const e = refused(r, "QUERY_TOO_COMPLEX");
    expect(e.message).toContain(String(MAX_COMPLEXITY));
    await noResolverRan(r);
  });

  it("aliases add up: many cheap root fields together are too costly", async () => {
    const aliases = Array.from(
      { length: 12 },
      (_, i) =>
        `j${i}: pickJobs(first: 20, filter: {facilityRef: {eq: $f}}) { edges { node { id status pickLineItems { id } } } }`,
    ).join("\n");
    const r = await q(`query Many($f: String!) {\n${aliases}\n}`, { f: facilityId });
    refused(r, "QUERY_TOO_COMPLEX");
    await noResolverRan(r);
    // One of them alone is fine.
    const one = await q(
      gql`query One($f: String!) { pickJobs(first: 20, filter: {facilityRef: {eq: $f}}) { edges { node { id status pickLineItems { id } } } } }`,
      { f: facilityId },
    );
    expect(one.errors, JSON.stringify(one.errors)).toEqual([]);
    expect(one.data.pickJobs.edges).toHaveLength(3);
  });

  it("a smaller page of the same query passes and runs (one search, one load unit batch)", async () => {
    const r = await q(HEAVY, { f: facilityId, n: 5 });
    expect(r.errors, JSON.stringify(r.errors)).toEqual([]);
    expect(r.status).toBe(200);
    const nodes = r.data.pickJobs.edges.map((e: Json) => e.node);
    expect(nodes).toHaveLength(3);
    for (const n of nodes) {
      expect(n.pickLineItems.map((l: Json) => l.article.title)).toEqual(["Cologne Water", "Soap"]);
      expect(n.loadUnits).toHaveLength(1);
    }
    const calls = await eventually(async () => {
      const c = rpcCalls(r.traceId);
      return Object.keys(c).length > 0 ? c : undefined;
    });
    expect(calls).toEqual({
      "fop.picking.v1.PickingService/SearchPickJobs": 1,
      "fop.loadunits.v1.LoadUnitsService/ListLoadUnitsOfPickJobs": 1,
    });
  });
});

describe("issue 25, 1. a fragment fan-out (2^(n+1) paths in 2n + 2 fragments) cannot hold the gateway", () => {
  /** ms a call takes. */
  const timed = async <T>(call: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const value = await call();
    return [value, performance.now() - started];
  };

  it("n = 20, 26, 30, POST and GET: 400 QUERY_TOO_COMPLEX within 100 ms while another tenant's GET stays under 100 ms", async () => {
    const other = sys.as(await sys.token("gql-limits-other"));
    const get = graphqlClient(sys, token, { method: "GET" });
    // Warm both paths up (the first request of a kind compiles code).
    await q(fragmentFanOut(4));
    await other("GET", "/api/facilities");
    for (const n of [20, 26, 30]) {
      for (const [how, client] of [
        ["POST", q],
        ["GET", get],
      ] as const) {
        const [[r, ms], [theirs, theirMs]] = await Promise.all([
          timed(() => client(fragmentFanOut(n))),
          timed(() => other("GET", "/api/facilities")),
        ]);
        expect(ms, `n = ${n} over ${how}`).toBeLessThan(100);
        expect(theirs.status).toBe(200);
        expect(theirMs, `the other tenant's GET beside n = ${n} over ${how}`).toBeLessThan(100);
        const e = refused(r, "QUERY_TOO_COMPLEX");
        expect(e.message).toContain(`costs ${2 ** (n + 1)}`);
      }
    }
    const r = await q(fragmentFanOut(30));
    await noResolverRan(r);
  });

  it("a small fan-out within the limits runs, once per field however often its fragments are spread", async () => {
    const r = await q(fragmentFanOut(6));
    expect(r.errors, JSON.stringify(r.errors)).toEqual([]);
    expect(r.data).toEqual({ __typename: "Query" });
  });

  it("a document over 2,000 tokens is refused before it is parsed: 400 QUERY_TOO_LARGE", async () => {
    const r = await q(fragmentFanOut(200));
    const e = refused(r, "QUERY_TOO_LARGE");
    expect(e.message).toContain("2000 tokens");
    await noResolverRan(r);
  });
});
