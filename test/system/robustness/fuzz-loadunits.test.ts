/**
 * 300 random malformed requests against the load unit routes (load units, their PATCH, action and
 * deletes, a pick job's load units, stacks, operative container types, load unit types, icons):
 * each is answered with a 2xx/4xx and the platform's error body, never a 5xx. Bodies are valid
 * ones with one random change (`mutate`), so they get past the first check and into the deeper
 * ones; icons include SVGs with active content (hostileSvg), none of which may be stored. Seeded
 * (FUZZ_SEED) so a failure can be replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type FuzzRequest, fuzz, fuzzRequests, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import { hostileSvg, storedActiveSvgs } from "../../support/hostile.ts";
import { type System, startSystem } from "../../support/system.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let sys: System;
let token: string;
let jobId: string;
let unit: any;
let stackId: string;
let oct: any;
let lut: any;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz", { roles: ["ADMIN"] });
  const api = sys.as(token);
  const facilityId = (await api("POST", "/api/facilities", { name: "F", address: facilityAddress })).body.id;
  jobId = (await api("POST", "/api/pickjobs", pickJobBody(facilityId))).body.id;
  stackId = (await api("POST", "/api/stacks", { facilityRefs: [facilityId], processRefs: [] })).body.id;
  oct = (
    await api("POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: "Box" },
      allowedOperativeTypes: ["PICKING"],
      scannableIdentifiers: [{ identifiers: ["B-"], searchType: "PREFIX" }],
    })
  ).body;
  lut = (await api("POST", "/api/loadunittypes", { nameLocalized: { en_US: "Bag" } })).body;
  [unit] = (
    await api("POST", "/api/loadunits", {
      loadUnits: [
        {
          pickJobRefs: [jobId],
          stackRef: stackId,
          loadUnitLineItems: [
            {
              article: { tenantArticleId: "A", title: "T" },
              recordableAttributes: [{ keyLocalized: { en_US: "k" }, recordingRule: "OPTIONAL" }],
            },
          ],
        },
      ],
    })
  ).body;
});
afterAll(() => sys?.close());

describe(`fuzzing the load unit routes (seed ${SEED})`, () => {
  it("300 malformed requests, no 5xx", async () => {
    const f = fuzz([jobId, unit.id, stackId, oct.id, lut.id]);
    const { int, pick, weird, mutate } = f;
    const idLike = () =>
      pick([
        unit.id,
        jobId,
        stackId,
        oct.id,
        lut.id,
        "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
        "x",
        String(weird()),
      ]);
    const loadUnitBody = () => ({
      pickJobRefs: [pick([jobId, jobId, idLike()])],
      codes: ["LU"],
      stackRef: pick([undefined, stackId, idLike()]),
      operativeContainerTypeRef: pick([undefined, oct.id, idLike()]),
      loadUnitTypeRef: pick([undefined, lut.id]),
      loadUnitLineItems: [{ article: { tenantArticleId: "A", title: "T" }, quantity: 1 }],
    });
    const attrId = unit.loadUnitLineItems[0].recordableAttributes[0].id;
    const query = () =>
      pick([
        "size",
        "startAfterId",
        "pickJobRef",
        "statuses",
        "locale",
        "id",
        "facilityRefs",
        "operativeType",
        "scannableIdentifier",
      ]);

    const request = (): FuzzRequest => {
      switch (int(12)) {
        case 0:
          return {
            method: "POST",
            path: "/api/loadunits",
            body: mutate({ loadUnits: [loadUnitBody(), loadUnitBody()] }),
          };
        case 1:
          return {
            method: "POST",
            path: `/api/pickjobs/${pick([jobId, idLike()])}/loadunits`,
            body: mutate({ codes: ["C"], stackRef: stackId }),
          };
        case 2:
          return {
            method: "PATCH",
            path: `/api/loadunits/${pick([unit.id, idLike()])}`,
            body: mutate(
              pick([
                {
                  version: int(4),
                  actions: [
                    {
                      action: "ReplaceLoadUnitLineItems",
                      loadUnitLineItems: [{ id: "L", article: { tenantArticleId: "A", title: "T" } }],
                    },
                  ],
                },
                { ...unit, version: int(4), codes: ["P"], stackRef: stackId },
              ]),
            ),
          };
        case 3:
          return {
            method: "POST",
            path: `/api/loadunits/${pick([unit.id, idLike()])}/actions`,
            body: mutate({
              name: "UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES",
              version: int(4),
              recordableAttributes: [{ recordableAttributeId: pick([attrId, "x"]), value: "v" }],
            }),
          };
        case 4:
          return {
            method: "DELETE",
            path: `/api/loadunits?${pick([`pickJobRef=${pick([jobId, idLike()])}&`, ""])}id=${encodeURIComponent(String(pick([unit.id, idLike(), weird()])))}`,
          };
        case 5:
          return { method: "GET", path: `/api/loadunits?${query()}=${encodeURIComponent(String(weird()))}` };
        case 6:
          return {
            method: pick(["GET", "DELETE"]),
            path: `/api/loadunits/${encodeURIComponent(String(idLike()))}${pick(["", "/stack", "?locale=de_DE"])}`,
          };
        case 7:
          return {
            method: "POST",
            path: "/api/stacks",
            body: mutate({ facilityRefs: ["F"], processRefs: ["P"] }),
          };
        case 8:
          return {
            method: "GET",
            path: `${pick(["/api/stacks", "/api/operativecontainertypes", "/api/loadunittypes"])}?${query()}=${encodeURIComponent(String(weird()))}`,
          };
        case 9:
          return pick([
            {
              method: "POST",
              path: "/api/operativecontainertypes",
              body: mutate({
                nameLocalized: { en_US: "X" },
                allowedOperativeTypes: ["HANDOVER"],
                priority: 2,
              }),
            },
            {
              method: "PATCH",
              path: `/api/operativecontainertypes/${pick([oct.id, idLike()])}`,
              body: mutate({ version: int(4), priority: 3 }),
            },
            {
              method: "POST",
              path: "/api/loadunittypes",
              body: mutate({ nameLocalized: { en_US: "Y" }, priority: 2 }),
            },
            {
              method: "PATCH",
              path: `/api/loadunittypes/${pick([lut.id, idLike()])}`,
              body: mutate({ version: int(4), actions: [{ action: "ModifyLoadUnitType", priority: 2 }] }),
            },
          ]);
        case 10:
          return {
            method: "PUT",
            path: `/api/${pick(["operativecontainertypes", "loadunittypes"])}/${pick([oct.id, lut.id, idLike()])}/icon`,
            body: mutate({
              name: pick(["i.png", "i.svg"]),
              content: pick([PNG, PNG.slice(0, 20), "PHN2Zz48L3N2Zz4=", "", hostileSvg(f), hostileSvg(f)]),
            }),
          };
        default:
          return {
            method: pick(["POST", "PATCH", "PUT"]),
            path: pick([
              "/api/loadunits",
              `/api/loadunits/${unit.id}`,
              "/api/stacks",
              "/api/operativecontainertypes",
            ]),
            body: pick(["{", "[1,2", "null", '"str"', "1e999", '{"loadUnits":}', "\u0000"]),
            headers: { "content-type": pick(["application/json", "text/plain", ""]) },
          };
      }
    };

    const classes = await fuzzRequests(sys, token, f, 300, request);
    console.log(`seed ${SEED}: ${JSON.stringify(classes)}`);
    expect(classes["2xx"] ?? 0, `seed ${SEED}`).toBeGreaterThan(5);
    // The system still works afterwards.
    const api = sys.as(token);
    const after = await api("POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [jobId] }] });
    expect(after.status, after.text).toBe(201);
    expect((await api("GET", `/api/loadunits/${after.body[0].id}`)).status).toBe(200);
    // No icon with active content was stored.
    expect(await storedActiveSvgs(sys.db.url)).toEqual([]);
  });
});
