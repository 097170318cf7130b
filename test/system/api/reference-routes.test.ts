/**
 * Every path and method of the reference (../shared/reference/openapi-subset.yaml) is served: a
 * request to each, with dummy path parameters and an empty body, reaches its route (never the
 * gateway's 404 ROUTE_NOT_FOUND, never a 405), is answered without a server error, and the answer
 * validates against what the reference declares for that operation and status (errors as ApiError).
 * No exceptions: a reference operation we do not serve fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceMissing, referenceOperations, referenceResponseErrors } from "../../support/reference.ts";
import { type System, startSystem } from "../../support/system.ts";

if (referenceMissing) console.warn(referenceMissing);

/** Stands for every path parameter: an id of nothing (a URN-capable parameter takes ids too). */
const DUMMY = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";

describe.skipIf(Boolean(referenceMissing))("every reference operation is served", () => {
  let sys: System;
  let api: ReturnType<System["as"]>;

  beforeAll(async () => {
    sys = await startSystem();
    api = sys.as(await sys.token("routes"));
  });
  afterAll(() => sys?.close());

  it("reaches its route (no ROUTE_NOT_FOUND, no 405), no 5xx, and the answer validates against the reference", async () => {
    const operations = referenceOperations();
    expect(operations.length).toBeGreaterThan(100);
    const problems: string[] = [];
    let validated = 0;
    for (const [method, template] of operations) {
      const url = template.replace(/\{[^}]+\}/g, DUMMY);
      const res = await api(method, url, method === "GET" || method === "DELETE" ? undefined : {});
      const at = `${method} ${template} -> ${res.status}`;
      const code = Array.isArray(res.body) ? res.body[0]?.code : undefined;
      if (res.status === 405) problems.push(`${at}: method not allowed`);
      else if (res.status === 404 && code === "ROUTE_NOT_FOUND") problems.push(`${at}: not served`);
      else if (res.status >= 500) problems.push(`${at}: ${JSON.stringify(res.body)}`);
      if (!/json/.test(res.headers.get("content-type") ?? "") || res.text === "") continue;
      const errors = referenceResponseErrors(method, template, res.status, res.body);
      if (errors) validated++;
      if (errors?.length) problems.push(`${at}: does not validate: ${JSON.stringify(errors).slice(0, 400)}`);
    }
    expect(problems).toEqual([]);
    // Nearly every answer has a declared body to check (the rest: bodiless 200s of DELETE).
    expect(validated).toBeGreaterThan(operations.length * 0.9);
  });

  it("the operation validator rejects what the reference does not declare", () => {
    expect(referenceResponseErrors("GET", "/api/facilities", 200, { facilities: "none" })).not.toEqual([]);
    expect(
      referenceResponseErrors("GET", "/api/configurations/handover/refusereasons", 200, [{ active: true }]),
    ).not.toEqual([]);
    expect(
      referenceResponseErrors("GET", "/api/facilities", 418, [{ description: "no summary" }]),
    ).not.toEqual([]);
    expect(referenceResponseErrors("GET", "/api/facilities", 200, { facilities: [], total: 0 })).toEqual([]);
  });
});
