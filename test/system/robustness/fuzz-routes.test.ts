/**
 * 300 random malformed requests against every route: the gateway answers each with a 2xx/4xx and
 * the platform's error body, never a 5xx. Seeded (FUZZ_SEED) so a failure can be replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzRequest, fuzz, fuzzRequests, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let token: string;
let ids: string[] = [];

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz");
  const api = sys.as(token);
  ids = [
    (await api("POST", "/api/categories", { tenantCategoryId: "FUZZ", nameLocalized: { en_US: "F" } })).body
      .id,
    (
      await api("POST", "/api/facilities", {
        name: "F",
        tenantFacilityId: "FUZZ",
        address: { companyName: "C", street: "S", postalCode: "1", city: "C", country: "DE" },
      })
    ).body.id,
  ];
});
afterAll(() => sys?.close());

describe(`fuzzing the gateway (seed ${SEED})`, () => {
  it("300 malformed requests, no 5xx", async () => {
    const f = fuzz([ids[0]]);
    const { r, pick, int, weird } = f;
    const deep = (d: number): unknown => {
      if (d === 0) return weird();
      const k = int(3);
      return k === 0 ? { and: [deep(d - 1)] } : k === 1 ? { or: [deep(d - 1), deep(d - 1)] } : [deep(d - 1)];
    };
    const idLike = () =>
      pick([
        ids[0]!,
        ids[1]!,
        "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
        "not-a-uuid",
        "urn:fft:category:tenantCategoryId:FUZZ",
        "urn:fft:facility:tenantFacilityId:FUZZ",
        "urn:fft:category:tenantCategoryId:" + "%F0%9F%92%A5",
        "urn:other:x:y:z",
        "urn:fft:category",
        "urn:",
        encodeURIComponent("a/b"),
        "%00",
        "x".repeat(700),
        "..%2F..%2Fetc%2Fpasswd",
      ]);
    const field = () =>
      pick([
        "id",
        "tenantCategoryId",
        "name",
        "nameLocalized",
        "customAttributes",
        "created",
        "and",
        "or",
        "nope",
        "__proto__",
        "constructor",
      ]);
    const op = () =>
      pick(["eq", "notEq", "in", "notIn", "like", "gt", "after", "exists", "contains", "$ne", ""]);
    const searchBody = () => {
      const body: Record<string, unknown> = {};
      if (r() < 0.9)
        body.query = r() < 0.3 ? deep(int(12)) : { [field()]: r() < 0.5 ? { [op()]: weird() } : weird() };
      if (r() < 0.4)
        body.sort = pick([
          [{ [field()]: pick(["ASC", "DESC", "UP", 1]) }],
          [],
          [{}],
          [{ customAttributes: { [String(weird())]: "ASC" } }],
          weird(),
        ]);
      if (r() < 0.3)
        body[pick(["after", "before"])] = pick([
          "",
          "abc",
          Buffer.from(JSON.stringify(["name", "ASC", weird(), "x"])).toString("base64url"),
          weird(),
        ]);
      if (r() < 0.3) body[pick(["size", "last"])] = pick([0, 1, 250, 251, -3, 2.5, "10", null]);
      if (r() < 0.2) body.options = weird();
      return body;
    };
    const categoryBody = () => {
      const body: Record<string, unknown> = {
        nameLocalized: r() < 0.7 ? { [pick(["en_US", "x", "", "de_DE"])]: weird() } : weird(),
      };
      if (r() < 0.5) body.tenantCategoryId = pick(["OK_ID", "", "a b", weird()]);
      if (r() < 0.5) body.customAttributes = weird();
      if (r() < 0.5) body.version = weird();
      if (r() < 0.2) body[String(weird()).slice(0, 20)] = weird();
      return body;
    };
    const facilityBody = () => {
      const body: Record<string, unknown> = {};
      for (const k of [
        "name",
        "type",
        "status",
        "version",
        "address",
        "tenantFacilityId",
        "locationType",
        "customAttributes",
        "actions",
        "services",
        "pickingTimes",
      ]) {
        if (r() < 0.4) body[k] = weird();
      }
      if (r() < 0.3)
        body.address = { country: weird(), street: weird(), resolvedTimeZone: { timeZoneId: weird() } };
      if (r() < 0.3) body.actions = [{ action: pick(["ModifyFacility", "x"]), name: weird() }];
      return body;
    };

    const request = (): FuzzRequest => {
      const kind = int(9);
      const headers: Record<string, string> = {};
      let method = "GET";
      let path = "/api/categories";
      let body: unknown;
      switch (kind) {
        case 0:
          path = `/api/categories?size=${encodeURIComponent(String(weird()))}&startAfterId=${encodeURIComponent(String(weird()))}`;
          break;
        case 1:
          method = "POST";
          body = categoryBody();
          break;
        case 2:
          method = pick(["GET", "PUT", "DELETE", "PATCH"]);
          path = `/api/categories/${idLike()}${r() < 0.2 ? "?forceDeletion=maybe" : ""}`;
          body = method === "PUT" || method === "PATCH" ? categoryBody() : undefined;
          break;
        case 3:
          method = "POST";
          path = "/api/categories/search";
          body = searchBody();
          break;
        case 4:
          method = pick(["POST", "PATCH"]);
          path = method === "POST" ? "/api/facilities" : `/api/facilities/${idLike()}`;
          body = facilityBody();
          break;
        case 5:
          path = `/api/facilities?${pick(["status", "type", "orderBy", "size", "startAfterId", "tenantFacilityId"])}=${encodeURIComponent(String(weird()))}`;
          break;
        case 6:
          method = pick(["POST", "PUT"]);
          path = pick([
            "/api/categories",
            "/api/categories/search",
            `/api/categories/${ids[0]}`,
            "/api/facilities",
          ]);
          body = pick([
            "{",
            "[1,2",
            "null",
            '"str"',
            "1e999",
            '{"a":}',
            "\u0000",
            '{"nameLocalized":{"en_US":"x"}}garbage',
          ]);
          headers["content-type"] = pick([
            "application/json",
            "text/plain",
            "application/xml",
            "application/json; charset=latin1",
            "",
          ]);
          break;
        case 7:
          method = pick(["GET", "POST", "OPTIONS", "HEAD", "DELETE"]);
          path = pick([
            "/api",
            "/api/",
            "/api/categories/",
            "/api//categories",
            "/api/categories/search/x",
            "/API/CATEGORIES",
            "/api/pickjobs",
            `/api/categories/${idLike()}/x`,
          ]);
          break;
        default:
          headers.authorization = pick([
            "Bearer",
            "Bearer ",
            `Bearer ${token}x`,
            `bearer ${token.split(".").reverse().join(".")}`,
            "Token abc",
            `Bearer ${"a".repeat(9000)}`,
          ]);
          method = "POST";
          body = categoryBody();
      }
      return { method, path, body, headers };
    };

    const classes = await fuzzRequests(sys, token, f, 300, request);
    console.log(`seed ${SEED}: ${JSON.stringify(classes)}`);
    // The system still works afterwards.
    const after = await sys.as(token)("POST", "/api/categories", { nameLocalized: { en_US: "still fine" } });
    expect(after.status).toBe(201);
    expect((await sys.as(token)("GET", `/api/categories/${after.body.id}`)).status).toBe(200);
  });
});
