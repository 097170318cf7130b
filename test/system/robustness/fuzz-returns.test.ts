/**
 * 300 random malformed requests against the returns routes (reasons, item return jobs and their
 * actions, item returns, their actions, line items and parcels, the list across jobs, the return
 * configuration): each is answered with a 2xx/3xx/4xx and the platform's error body, never a 5xx.
 * Bodies are valid ones with one random change (`mutate`); versions are drawn near the real ones so
 * some writes land. Afterwards the job still takes a write on the version it shows. Seeded (FUZZ_SEED).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { type FuzzRequest, fuzz, fuzzRequests, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let token: string;
let facilityId: string;
let job: any;
let carrierId: string;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz", { roles: ["ADMIN"] });
  const api = sys.as(token);
  facilityId = (await api("POST", "/api/facilities", { name: "F", address: facilityAddress })).body.id;
  carrierId = (await api("POST", "/api/carriers", { key: "GLS", name: "GLS" })).body.id;
  const created = (
    await api("POST", "/api/itemreturnjobs", {
      originFacilityRefs: [facilityId],
      status: "OPEN",
      consumerAddresses: [facilityAddress],
      returnableLineItems: [
        { article: { tenantArticleId: "A", title: "T" }, delivered: 3 },
        { article: { tenantArticleId: "B", title: "U" }, delivered: 1 },
      ],
      notReturnableLineItems: [{ article: { tenantArticleId: "N", title: "V" }, delivered: 1 }],
    })
  ).body;
  job = (
    await api("POST", `/api/itemreturnjobs/${created.id}/itemreturns`, {
      itemReturnJobVersion: 1,
      itemReturnForCreation: {
        status: "OPEN",
        returnFacilityRef: facilityId,
        returnedLineItems: [{ itemReturnJobLineItemRef: created.returnableLineItems[0].id, status: "OPEN" }],
        returnedNotReturnableLineItems: [
          { itemReturnJobLineItemRef: created.notReturnableLineItems[0].id, status: "OPEN" },
        ],
      },
    })
  ).body;
});
afterAll(() => sys?.close());

describe(`fuzzing the returns routes (seed ${SEED})`, () => {
  it("300 malformed requests, no 5xx", async () => {
    const ir = job.itemReturns[0];
    const f = fuzz([job.id, ir.id]);
    const { int, pick, weird, mutate } = f;
    const version = () => 1 + int(12);
    const idLike = () => pick([job.id, ir.id, "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f", "x", String(weird())]);
    const jobPath = () =>
      `/api/itemreturnjobs/${encodeURIComponent(String(pick([job.id, job.id, idLike()])))}`;
    const irPath = () =>
      `${jobPath()}/itemreturns/${encodeURIComponent(String(pick([ir.id, ir.id, idLike()])))}`;
    const jobLine = () =>
      pick([
        job.returnableLineItems[0].id,
        job.returnableLineItems[1].id,
        job.notReturnableLineItems[0].id,
        "x",
      ]);
    const lineStatus = () =>
      pick(["OPEN", "IN_PROGRESS", "WAITING_FOR_INPUT", "ACCEPTED", "REJECTED", "CANCELED", "LOST"]);
    const returnLine = () => ({
      itemReturnJobLineItemRef: jobLine(),
      status: lineStatus(),
      reasons: pick([
        undefined,
        [{ reasonLocalized: { en_US: "r" } }],
        Array(21).fill({ reasonLocalized: { en_US: "r" } }),
      ]),
      itemConditionComment: pick([undefined, "ok", ""]),
    });
    const reason = () => ({ reason: pick(["R", "S", ""]), reasonLocalized: { en_US: "R" } });

    const request = (): FuzzRequest => {
      switch (int(13)) {
        case 0:
          return {
            method: "POST",
            path: pick(["/api/cancelationreasons", "/api/reroutedescriptions"]),
            body: mutate(reason()),
          };
        case 1:
          return {
            method: pick(["PUT", "GET", "DELETE"]),
            path: `${pick(["/api/cancelationreasons", "/api/reroutedescriptions"])}/${encodeURIComponent(String(idLike()))}`,
            body: mutate({ version: int(3), ...reason() }),
          };
        case 2:
          return {
            method: "POST",
            path: "/api/itemreturnjobs",
            body: mutate({
              originFacilityRefs: [pick([facilityId, facilityId, idLike()])],
              status: pick(["OPEN", "IN_PROGRESS", "DONE"]),
              consumerAddresses: [facilityAddress],
              returnableLineItems: [
                { article: { tenantArticleId: "A", title: "T" }, delivered: pick([1, 0, 2.5]) },
              ],
            }),
          };
        case 3:
          return {
            method: "POST",
            path: `${jobPath()}/actions`,
            body: mutate(
              pick([
                {
                  name: pick(["StartItemReturnJob", "FinishItemReturnJob", "RestartItemReturnJob"]),
                  version: version(),
                },
                {
                  name: "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB",
                  version: version(),
                  lineItemIds: [jobLine()],
                },
                {
                  name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB",
                  version: version(),
                  notReturnableLineItems: [],
                },
              ]),
            ),
          };
        case 4:
          return {
            method: "POST",
            path: `${jobPath()}/itemreturns`,
            body: mutate({
              itemReturnJobVersion: version(),
              itemReturnForCreation: {
                status: pick(["OPEN", "ANNOUNCED", "LOST"]),
                returnFacilityRef: pick([facilityId, idLike()]),
                returnedLineItems: [returnLine()],
              },
            }),
          };
        case 5:
          return {
            method: "POST",
            path: `${irPath()}/actions`,
            body: mutate({
              name: pick([
                "StartItemReturn",
                "PauseItemReturn",
                "FinishItemReturn",
                "CancelItemReturn",
                "OpenItemReturn",
              ]),
              itemReturnJobVersion: version(),
            }),
          };
        case 6:
          return {
            method: "PATCH",
            path: `${irPath()}/${pick(["returnedlineitems", "returnednotreturnablelineitems"])}/${encodeURIComponent(String(pick([ir.returnedLineItems[0].id, ir.returnedNotReturnableLineItems[0].id, idLike()])))}`,
            body: mutate({
              itemReturnJobVersion: version(),
              status: lineStatus(),
              refund: pick([undefined, { status: "OPEN", percent: 10 }, { status: "OPEN" }]),
            }),
          };
        case 7:
          return {
            method: "PUT",
            path: `${irPath()}/${pick(["returnedlineitems", "returnednotreturnablelineitems"])}`,
            body: mutate({
              itemReturnJobVersion: version(),
              returnedLineItems: [returnLine()],
              returnedNotReturnableLineItems: [returnLine()],
            }),
          };
        case 8:
          return {
            method: "GET",
            path: `${pick(["/api/itemreturnjobs", "/api/itemreturns"])}?${pick(["size", "startAfterId", "searchTerm", "itemReturnStatus", "itemReturnJobStatus", "facilityId", "facilityRefs", "anonymized", "itemReturnLineItemStatus"])}=${encodeURIComponent(String(weird()))}`,
          };
        case 9:
          return {
            method: "PUT",
            path: "/api/configurations/return",
            body: mutate({
              version: int(4),
              active: true,
              availableReturnReasons: [
                { reasonLocalized: { en_US: "R" }, identifier: pick([undefined, "1", "Z", "0"]) },
              ],
            }),
          };
        case 10:
          return {
            method: pick(["GET", "DELETE"]),
            path: `${irPath()}${pick(["", "?itemReturnJobVersion=3", "?itemReturnJobVersion=x"])}`,
          };
        case 11:
          return {
            method: "POST",
            path: `${irPath()}/parcels`,
            body: mutate({
              carrierRef: pick([carrierId, carrierId, idLike()]),
              status: pick([undefined, "OPEN", "CANCELED", "LOST"]),
              tenantParcelId: pick([undefined, "P-1", "P-2", ""]),
              items: [{ quantity: pick([1, 0, 2.5]), article: { tenantArticleId: "A", title: "T" } }],
              pickUpInformation: pick([
                undefined,
                { startTime: "2026-11-26T08:00:00Z", endTime: "2026-11-26T12:00:00Z" },
                { startTime: "2026-11-26T12:00:00Z", endTime: "2026-11-26T08:00:00Z" },
              ]),
            }),
          };
        default:
          return {
            method: pick(["POST", "PATCH", "PUT"]),
            path: pick([
              "/api/itemreturnjobs",
              `${jobPath()}/actions`,
              `${jobPath()}/itemreturns`,
              `${irPath()}/parcels`,
              "/api/configurations/return",
            ]),
            body: pick(["{", "[1,2", "null", '"str"', "1e999", '{"version":}', "\u0000"]),
            headers: { "content-type": pick(["application/json", "text/plain", ""]) },
          };
      }
    };

    const classes = await fuzzRequests(sys, token, f, 300, request);
    console.log(`seed ${SEED}: ${JSON.stringify(classes)}`);
    expect(classes["2xx"] ?? 0, `seed ${SEED}`).toBeGreaterThan(5);

    // The job still takes a write on the version it shows, and moves it by exactly one.
    const api = sys.as(token);
    const now = await api("GET", `/api/itemreturnjobs/${job.id}`);
    expect(now.status, now.text).toBe(200);
    const next = await api("POST", `/api/itemreturnjobs/${job.id}/actions`, {
      name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB",
      version: now.body.version,
      notReturnableLineItems: [],
    });
    expect(next.status, next.text).toBe(200);
    expect(next.body.version).toBe(now.body.version + 1);
  });
});
