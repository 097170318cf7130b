/**
 * The OpenAPI document lists every status an operation can answer: the gateway's own on every /api
 * operation (rate limit, auth, validation, a service down or slow; an unknown entity where the path
 * names one; a body too large or not JSON where one is read), and on URN-accepting path parameters
 * their URN form. (What the routes really answered in the system tests is compared with the
 * document after the last file: support/route-statuses.ts.)
 */
import { openApiDocument } from "@fop/gateway";
import { beforeAll, describe, expect, it } from "vitest";
import { undocumentedStatuses } from "../../support/route-statuses.ts";

type Operation = {
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  parameters?: { in: string; name: string; description?: string }[];
};

describe("the OpenAPI document's statuses", () => {
  let operations: [string, Operation][];
  let doc: Record<string, any>;
  beforeAll(async () => {
    doc = await openApiDocument();
    operations = Object.entries<Record<string, Operation>>(doc.paths)
      .filter(([p]) => p.startsWith("/api/"))
      .flatMap(([p, ops]) =>
        Object.entries(ops).map(([m, op]): [string, Operation] => [`${m.toUpperCase()} ${p}`, op]),
      );
    expect(operations.length).toBeGreaterThan(50);
  });

  /** A schema behind its `$ref` (a named component). */
  const deref = (schema: any): any =>
    schema?.$ref ? deref(doc.components.schemas[schema.$ref.split("/").pop()]) : schema;

  it("lists 429 and the gateway's other answers, with the error array, on every /api operation", () => {
    const missing: string[] = [];
    for (const [name, op] of operations) {
      const [method, p] = name.split(" ") as [string, string];
      const expected = [400, 401, 403, 429, 500, 503, 504];
      if (p.includes("{")) expected.push(404);
      if (method !== "GET") expected.push(413, 415);
      for (const status of expected) {
        const res = op.responses[String(status)];
        if (!res) missing.push(`${name} ${status}`);
        else {
          const body = deref(res.content?.["application/json"]?.schema);
          expect(body, `${name} ${status}`).toMatchObject({ type: "array" });
          expect(deref(body?.items), `${name} ${status}`).toMatchObject({
            type: "object",
            properties: { summary: { type: "string" } },
          });
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists 200 on DELETE /api/facilities/{facilityId}", () => {
    expect(Object.keys(doc.paths["/api/facilities/{facilityId}"].delete.responses)).toContain("200");
  });

  it("names the URN form of every path parameter that accepts one", () => {
    const param = (p: string, m: string, name: string) =>
      (doc.paths[p][m] as Operation).parameters?.find((x) => x.in === "path" && x.name === name)?.description;
    for (const m of ["get", "patch", "delete"])
      expect(param("/api/facilitygroups/{facilityGroupId}", m, "facilityGroupId")).toMatch(
        "urn:fft:facilitygroup:tenantFacilityGroupId:<value>",
      );
    expect(param("/api/facilitygroups/{facilityGroupId}/actions", "post", "facilityGroupId")).toMatch(
      "urn:fft:facilitygroup:tenantFacilityGroupId:<value>",
    );
    for (const m of ["get", "put"])
      expect(param("/api/facilities/{facilityRef}/configurations/notifications", m, "facilityRef")).toMatch(
        "urn:fft:facility:tenantFacilityId:<value>",
      );
    expect(
      param("/api/facilities/{facilityRef}/configurations/notifications/actions", "post", "facilityRef"),
    ).toMatch("urn:fft:facility:tenantFacilityId:<value>");
    // Already described by its route: not said twice.
    expect(param("/api/facilities/{facilityId}", "get", "facilityId")).toBe(
      "Id of the facility, or urn:fft:facility:tenantFacilityId:<value>",
    );
  });

  it("the comparison of recorded answers flags what the document does not list", () => {
    const lines = [
      "DELETE /api/facilities/:facilityId 200",
      "GET /api/facilitygroups/:facilityGroupId 429",
      "HEAD /api/facilities/:facilityId 404",
      "POST /api/facilitygroups/:facilityGroupId/actions 418",
      "GET /api/nothing/:here 200",
      "",
    ];
    expect(undocumentedStatuses(lines, doc)).toEqual([
      "GET /api/nothing/:here 200 (the document has no GET /api/nothing/{here})",
      "POST /api/facilitygroups/:facilityGroupId/actions 418",
    ]);
  });
});
