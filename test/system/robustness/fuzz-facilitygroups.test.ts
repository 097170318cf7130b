/**
 * 300 random malformed requests against the facility group routes (create, list, search, get,
 * PATCH, DELETE, the four actions, URN paths): each is answered with a 2xx/4xx and the platform's
 * error body, never a 5xx. Bodies are valid ones with one random change (`mutate`); versions are
 * drawn near the real ones so some writes land. Afterwards the group still takes a versioned
 * action. Seeded (FUZZ_SEED).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { type FuzzRequest, fuzz, fuzzRequests, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let token: string;
let facilities: string[];
let group: any;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz", { roles: ["ADMIN"] });
  const api = sys.as(token);
  facilities = [];
  for (let i = 0; i < 3; i++) {
    facilities.push(
      (await api("POST", "/api/facilities", { name: `F${i}`, address: facilityAddress })).body.id,
    );
  }
  group = (
    await api("POST", "/api/facilitygroups", {
      tenantFacilityGroupId: "FUZZ",
      nameLocalized: { en_US: "Fuzz" },
      facilityRefs: [facilities[0]],
    })
  ).body;
});
afterAll(() => sys?.close());

describe(`fuzzing the facility group routes (seed ${SEED})`, () => {
  it("300 malformed requests, no 5xx", async () => {
    const f = fuzz([group.id, ...facilities]);
    const { int, pick, weird, mutate } = f;
    const version = () => 1 + int(12);
    const facility = () =>
      pick([...facilities, "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f", "x", String(weird())]);
    const groupPath = () =>
      `/api/facilitygroups/${encodeURIComponent(
        String(
          pick([
            group.id,
            group.id,
            "urn:fft:facilitygroup:tenantFacilityGroupId:FUZZ",
            "urn:fft:facilitygroup:tenantFacilityGroupId:%F0%9F%92%A5",
            "urn:fft:facilitygroup:id:x",
            "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
            weird(),
          ]),
        ),
      )}`;
    const groupBody = () => ({
      tenantFacilityGroupId: pick(["FUZZ", "G1", "G2", "a b", ""]),
      nameLocalized: pick([{ en_US: "G" }, {}, { "en US": "G" }]),
      facilityRefs: pick([[facility()], [], [facilities[0], facilities[0]]]),
      customAttributes: pick([undefined, null, { a: 1 }, { $x: 1 }]),
    });

    const request = (): FuzzRequest => {
      switch (int(8)) {
        case 0:
          return { method: "POST", path: "/api/facilitygroups", body: mutate(groupBody()) };
        case 1:
          return {
            method: "GET",
            path: `/api/facilitygroups?${pick(["size", "startAfterId", "tenantFacilityGroupId"])}=${encodeURIComponent(String(weird()))}`,
          };
        case 2:
          return {
            method: "POST",
            path: "/api/facilitygroups/search",
            body: mutate({
              query: pick([
                { facilityRefs: { contains: { eq: facility() } } },
                { name: { like: pick(["G", "(", "x"]) } },
                { or: [{ id: { eq: group.id } }, { tenantFacilityGroupId: { in: ["FUZZ"] } }] },
              ]),
              sort: [
                {
                  [pick(["facilityCount", "name", "tenantFacilityGroupId", "created"])]: pick([
                    "ASC",
                    "DESC",
                  ]),
                },
              ],
              size: pick([1, 20, 250, 251]),
              after: pick([undefined, "x.y", String(weird())]),
              options: { withTotal: pick([true, false]) },
            }),
          };
        case 3:
          return { method: pick(["GET", "DELETE"]), path: groupPath() };
        case 4:
          return { method: "PATCH", path: groupPath(), body: mutate({ version: version(), ...groupBody() }) };
        case 5:
          return {
            method: "POST",
            path: `${groupPath()}/actions`,
            body: mutate(
              pick([
                { name: "ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [facility()], version: version() },
                { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [facility(), facility()] },
                {
                  name: "REMOVE_FACILITIES_FROM_GROUP",
                  facilitiesToRemove: [facility()],
                  version: version(),
                },
                { name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: [facility()] },
              ]),
            ),
          };
        case 6:
          return {
            method: "POST",
            path: `${groupPath()}/actions`,
            body: {
              name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP",
              facilitiesToAdd: Array.from({ length: pick([0, 1, 200, 201]) }, facility),
            },
          };
        default:
          return {
            method: pick(["POST", "PATCH"]),
            path: pick([
              "/api/facilitygroups",
              "/api/facilitygroups/search",
              groupPath(),
              `${groupPath()}/actions`,
            ]),
            body: pick(["{", "[1,2", "null", '"str"', "1e999", '{"version":}', "\u0000"]),
            headers: { "content-type": pick(["application/json", "text/plain", ""]) },
          };
      }
    };

    const classes = await fuzzRequests(sys, token, f, 300, request);
    console.log(`seed ${SEED}: ${JSON.stringify(classes)}`);
    expect(classes["2xx"] ?? 0, `seed ${SEED}`).toBeGreaterThan(5);

    // A group still takes a versioned action on the version it shows, and moves it by exactly one.
    const api = sys.as(token);
    const live = await api("POST", "/api/facilitygroups", {
      tenantFacilityGroupId: "AFTER",
      nameLocalized: { en_US: "After" },
      facilityRefs: [],
    });
    expect(live.status, live.text).toBe(201);
    const next = await api("POST", `/api/facilitygroups/${live.body.id}/actions`, {
      name: "ADD_FACILITIES_TO_GROUP",
      facilitiesToAdd: [facilities[1]],
      version: 1,
    });
    expect(next.status, next.text).toBe(200);
    expect(next.body).toMatchObject({ version: 2, facilityRefs: [facilities[1]] });
  });
});
