/** /graphql's switches: introspection, automatic persisted queries; GET is for queries only. */
import { createHash } from "node:crypto";
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { describe, expect, it } from "vitest";
import { buildGateway } from "../app.ts";
import type { GraphqlOptions } from "./plugin.ts";

const gateway = (graphql: GraphqlOptions, lines?: Record<string, unknown>[]) =>
  buildGateway({
    logger: createLogger({
      service: "graphql-test",
      level: lines ? "info" : "silent",
      ...(lines ? { destination: { write: (l: string) => void lines.push(JSON.parse(l)) } } : {}),
    }),
    metrics: createMetrics("graphql-test"),
    clients: {} as never,
    verify: async () => ({ tenant: "t", userId: "u", username: "u", roles: [], permissions: [] }),
    resolveUrn: async () => "",
    checkServices: async () => ({}),
    publicUrl: "",
    graphql,
  });
const auth = { authorization: "Bearer x" };
const post = (app: Awaited<ReturnType<typeof gateway>>, payload: object) =>
  app.inject({ method: "POST", url: "/graphql", headers: auth, payload });

describe("/graphql settings", () => {
  it("introspection answers by default and is refused when switched off", async () => {
    const on = await gateway({});
    const q = { query: "{ __schema { queryType { name } } }" };
    expect((await post(on, q)).json()).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    await on.close();
    const off = await gateway({ introspection: false });
    const res = await post(off, q);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(res.json().errors[0].message).toMatch(/introspection/i);
    expect((await post(off, { query: "{ __typename }" })).json()).toEqual({ data: { __typename: "Query" } });
    await off.close();
  });

  it("automatic persisted queries: a hash alone is unknown until sent with its query once", async () => {
    const app = await gateway({ persistedQueries: true });
    const query = "{ __typename }";
    const sha256Hash = createHash("sha256").update(query).digest("hex");
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const first = await post(app, { extensions });
    expect(first.json().errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_FOUND");
    expect((await post(app, { query, extensions })).json()).toEqual({ data: { __typename: "Query" } });
    expect((await post(app, { extensions })).json()).toEqual({ data: { __typename: "Query" } });
    await app.close();
  });

  it("GET runs queries, not mutations; a token is needed either way", async () => {
    const app = await gateway({});
    const get = (query: string, headers: Record<string, string> = auth) =>
      app.inject({ method: "GET", url: `/graphql?query=${encodeURIComponent(query)}`, headers });
    expect((await get("{ __typename }")).json()).toEqual({ data: { __typename: "Query" } });
    const mutation = await get('mutation { deleteCategory(id: "x") { id } }');
    expect(mutation.statusCode).toBe(405);
    const anonymous = await get("{ __typename }", {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().errors[0].extensions.code).toBe("MISSING_TOKEN");
    await app.close();
  });

  it("X-User-Agent: a well-formed one is on the request's log line, a malformed or absent one is ignored", async () => {
    const lines: Record<string, unknown>[] = [];
    const app = await gateway({}, lines);
    const query = { query: "{ __typename }" };
    const send = (agent?: string) =>
      app.inject({
        method: "POST",
        url: "/graphql",
        headers: { ...auth, ...(agent === undefined ? {} : { "x-user-agent": agent }) },
        payload: query,
      });
    for (const agent of ["PickApp/1.2.3", undefined, "not an agent", "PickApp/", "x".repeat(600)]) {
      const res = await send(agent);
      expect(res.statusCode, String(agent)).toBe(200);
    }
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.map((l) => l.clientApp)).toEqual([
      "PickApp/1.2.3",
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(requests[0]).toMatchObject({ route: "/graphql", status: 200, tenant: "t" });
    await app.close();
  });
});
