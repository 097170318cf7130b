/** The gateway's request histogram: route templates, bounded methods, GraphQL operation types. */
import { createMetrics } from "@fop/kit/metrics";
import { fastify } from "fastify";
import { describe, expect, it } from "vitest";
import { graphqlOperationType, installMetrics } from "./metrics.ts";

describe("graphqlOperationType", () => {
  it.each([
    ["{ facilities { id } }", undefined, "query"],
    ["query { a }", undefined, "query"],
    ["query Named($x: Int = 3) { a(x: $x) }", undefined, "query"],
    ['mutation M { createFacility(input: {name: "query"}) { id } }', undefined, "mutation"],
    ["subscription S { changed }", undefined, "subscription"],
    // Default values and arguments with braces are no anonymous queries.
    ["query Q($f: In = {a: {b: 1}}) @dir(arg: {c: 2}) { a }", undefined, "query"],
    // Fragments are no operations; strings, block strings and comments are not read as tokens.
    [
      'fragment F on Facility { id }\n# mutation X { y }\nmutation M { a(s: """{ query """) { ...F } }',
      undefined,
      "mutation",
    ],
    ["query A { a } mutation B { b }", "B", "mutation"],
    ["query A { a } mutation B { b }", "A", "query"],
    // Only the tokens count, not whether the document is valid (mercurius answers that).
    ["{ a", undefined, "query"],
  ])("%s (%s) -> %s", (source, name, type) => {
    expect(graphqlOperationType(source, name)).toBe(type);
  });

  it.each([
    ["query A { a } mutation B { b }", undefined], // several and none named
    ["query A { a }", "Other"], // no such operation
    ['query { a(s: "unterminated) }', undefined], // does not lex
    ["", undefined],
  ])("%s (%s) -> not clear", (source, name) => {
    expect(graphqlOperationType(source, name)).toBeUndefined();
  });
});

describe("installMetrics", () => {
  it("labels each response with the route template, the method (unknown ones as _OTHER) and the status", async () => {
    const metrics = createMetrics("t");
    const app = fastify();
    installMetrics(app, metrics);
    app.get("/api/facilities/:facilityId", async () => ({ ok: true }));
    app.post("/graphql", async () => ({ data: {} }));
    app.get("/graphql", async () => ({ data: {} }));
    await app.inject("/api/facilities/f-1");
    await app.inject("/api/facilities/f-2");
    await app.inject("/nowhere/at/all");
    await app.inject({ method: "PROPFIND", url: "/api/facilities/f-3" });
    await app.inject({ method: "POST", url: "/graphql", payload: { query: "mutation { a }" } });
    await app.inject({
      method: "POST",
      url: "/graphql",
      payload: { query: "query A { a } mutation B { b }", operationName: "B" },
    });
    await app.inject({ method: "GET", url: "/graphql?query=%7B%20a%20%7D" });
    await app.inject({ method: "POST", url: "/graphql", payload: { extensions: { persistedQuery: {} } } });
    const text = await metrics.registry.metrics();
    /** The count of the series with exactly these labels (and `service`). */
    const count = (labels: Record<string, string>) => {
      const want = JSON.stringify(Object.entries({ ...labels, service: "t" }).sort());
      for (const m of text.matchAll(/^http_server_request_duration_seconds_count\{(.*)\} (\d+)$/gm)) {
        const got = [...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]).sort();
        if (JSON.stringify(got) === want) return Number(m[2]);
      }
      return 0;
    };
    expect(
      count({
        http_request_method: "GET",
        http_route: "/api/facilities/:facilityId",
        http_response_status_code: "200",
      }),
    ).toBe(2);
    expect(
      count({ http_request_method: "GET", http_route: "unmatched", http_response_status_code: "404" }),
    ).toBe(1);
    expect(text).toMatch(/http_request_method="_OTHER",http_route="unmatched"/);
    expect(
      count({
        http_request_method: "POST",
        http_route: "/graphql",
        http_response_status_code: "200",
        graphql_operation_type: "mutation",
      }),
    ).toBe(2);
    expect(
      count({
        http_request_method: "GET",
        http_route: "/graphql",
        http_response_status_code: "200",
        graphql_operation_type: "query",
      }),
    ).toBe(1);
    // A persisted query sent by its hash alone: no operation type.
    expect(
      count({ http_request_method: "POST", http_route: "/graphql", http_response_status_code: "200" }),
    ).toBe(1);
    // No raw path anywhere.
    expect(text).not.toContain("f-1");
    await app.close();
  });
});
