/**
 * 300 random malformed requests against the picking routes (pick jobs, their actions, PATCH, search,
 * list, documents, pick runs): each is answered with a 2xx/4xx and the platform's error body, never
 * a 5xx. Bodies are valid ones with one random change (`mutate`), so they get past the first check
 * and into the deeper ones. Seeded (FUZZ_SEED) so a failure can be replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type FuzzRequest, fuzz, fuzzRequests, FUZZ_SEED as SEED } from "../../support/fuzz.ts";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let token: string;
let facilityId: string;
/** Pick jobs: OPEN, IN_PROGRESS, in a run. */
let jobs: any[];
let run: any;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz", { roles: ["ADMIN"] });
  const api = sys.as(token);
  facilityId = (await api("POST", "/api/facilities", { name: "F", address: facilityAddress })).body.id;
  jobs = [];
  for (let i = 0; i < 4; i++) {
    const res = await api("POST", "/api/pickjobs", pickJobBody(facilityId, { tenantOrderId: `FUZZ-${i}` }));
    expect(res.status, res.text).toBe(201);
    jobs.push(res.body);
  }
  expect(
    (await api("POST", `/api/pickjobs/${jobs[1].id}/actions`, { name: "START", version: 1 })).status,
  ).toBe(200);
  const created = await api("POST", "/api/pickruns", {
    facilityRef: facilityId,
    pickJobRefs: [jobs[2].id, jobs[3].id],
  });
  expect(created.status, created.text).toBe(201);
  run = created.body;
});
afterAll(() => sys?.close());

const JOB_ACTIONS = [
  "START",
  "PICK",
  "CLOSE",
  "ABORT",
  "CANCEL",
  "OBSOLETE",
  "PAUSE",
  "RESTART",
  "RESET",
  "REPLACE_ASSIGNED_USERS",
  "SPLIT_LINE_ITEMS_PICK_JOB",
  "MERGE_LINE_ITEMS_PICK_JOB",
  "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
  "MODIFY_PICK_JOB_LINE_ITEMS",
  "ADD_TARGET_TIME",
];
const RUN_ACTIONS = [
  "START",
  "FINISH",
  "CANCEL",
  "PAUSE",
  "RESUME",
  "REMOVE_PICK_JOB",
  "SPLIT_LINES_PICK_RUN",
  "TAKE_OVER_PICK_RUN",
];

describe(`fuzzing the picking routes (seed ${SEED})`, () => {
  it("300 malformed requests, no 5xx", async () => {
    const f = fuzz([jobs[0].id, run.id, facilityId]);
    const { r, int, pick, weird, mutate } = f;
    const job = () => pick(jobs);
    const line = (j: any) => pick(j.pickLineItems as any[]);
    const idLike = () =>
      pick([
        job().id,
        run.id,
        "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
        "not-a-uuid",
        "urn:fft:pickjob:tenantOrderId:FUZZ-1",
        "%00",
        "x".repeat(700),
        "..%2F..%2Fetc%2Fpasswd",
      ]);
    /** A valid action body for `j` (most of the time), before mutation. */
    const jobAction = (j: any): Record<string, unknown> => {
      const l = line(j);
      const name = pick(JOB_ACTIONS);
      const version = pick([j.version, j.version, j.version + 1, 0]);
      switch (name) {
        case "PICK":
          return { name, version, lineItems: [{ id: l.id, picked: int(l.quantity + 3) }] };
        case "REPLACE_ASSIGNED_USERS":
          return { name, version, assignedUsers: [{ username: "ada" }] };
        case "SPLIT_LINE_ITEMS_PICK_JOB":
          return { name, version, splitLineItemsInfo: [{ lineItemId: l.id, quantity: 1, picked: 0 }] };
        case "MERGE_LINE_ITEMS_PICK_JOB":
          return { name, version, lineItemIds: j.pickLineItems.map((x: any) => x.id) };
        case "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES":
          return {
            name,
            version,
            recordableAttributeUpdates: [{ pickLineItemId: l.id, recordableAttributeId: "x", value: "DE" }],
          };
        case "MODIFY_PICK_JOB_LINE_ITEMS":
          return { name, version, pickJobLineItemUpdates: [{ id: l.id, picked: 1, status: "IN_PROGRESS" }] };
        case "ADD_TARGET_TIME":
          return { name, version, targetTime: "2030-01-01T00:00:00Z" };
        default:
          return { name, version };
      }
    };
    const patchBody = (j: any) => ({
      version: j.version,
      actions: [
        pick([
          { action: "ModifyPickJob", status: pick(["IN_PROGRESS", "PICKED", "CLOSED", "OPEN"]) },
          {
            action: "ModifyPickLineItem",
            id: line(j).id,
            picked: int(6),
            status: "CLOSED",
            scannedCodes: [{ code: "4006381333931", quantity: 1 }],
            partialStockLocations: [{ stockRef: "s1", picked: 1 }],
            substituteLineItems: [{ tenantArticleId: "4713", picked: 1 }],
            shortPickReasonLocalized: { en_US: "broken" },
          },
        ]),
      ],
    });
    const searchBody = () =>
      mutate({
        query: {
          and: [
            { facilityRef: { eq: facilityId } },
            { status: { in: ["OPEN", "IN_PROGRESS"] } },
            { consumerName: { like: "Max.*" } },
            { targetTime: { after: "P1D" } },
            { tenantArticleIds: { contains: { eq: "4711" } } },
            { transfers: { exists: false } },
          ],
        },
        sort: [{ targetTime: "ASC" }],
        size: 5,
        options: { withTotal: true },
      });
    const runAction = () => {
      const name = pick(RUN_ACTIONS);
      const version = pick([run.version, run.version + 1]);
      if (name === "REMOVE_PICK_JOB") return { name, version, payload: { pickJobId: jobs[2].id } };
      if (name === "SPLIT_LINES_PICK_RUN")
        return {
          name,
          version,
          payload: { splitLineItemsInfo: [{ lineItemId: "x", quantity: 1, picked: 0 }] },
        };
      return { name, version };
    };

    const request = (): FuzzRequest => {
      const j = job();
      switch (int(11)) {
        case 0:
          return { method: "POST", path: "/api/pickjobs", body: mutate(pickJobBody(facilityId)) };
        case 1:
        case 2:
          return {
            method: "POST",
            path: `/api/pickjobs/${r() < 0.9 ? j.id : idLike()}/actions`,
            body: r() < 0.8 ? mutate(jobAction(j)) : jobAction(j),
          };
        case 3:
          return { method: "PATCH", path: `/api/pickjobs/${j.id}`, body: mutate(patchBody(j)) };
        case 4:
          return { method: "POST", path: "/api/pickjobs/search", body: searchBody() };
        case 5:
          return {
            method: "GET",
            path: `/api/pickjobs?${pick(["status", "size", "startAfterId", "orderBy", "channel", "anonymized", "startOrderDate", "carrierKeys", "pickJobRefs"])}=${encodeURIComponent(String(weird()))}`,
          };
        case 6:
          return {
            method: "GET",
            path: `/api/pickjobs/${idLike()}${pick([
              "",
              "/returnnote",
              "/transferlabel",
              "/documenthandling",
              `/deliverynote?locale=${encodeURIComponent(String(weird()).slice(0, 50))}`,
              `/picklineitems/${pick([line(j).id, "x", "%00"])}/availablesubstitutes`,
            ])}`,
          };
        case 7:
          return {
            method: "POST",
            path: "/api/pickruns",
            body: mutate({ facilityRef: facilityId, pickJobRefs: [jobs[0].id], pickRunType: "batch" }),
          };
        case 8:
          return {
            method: "POST",
            path: `/api/pickruns/${r() < 0.9 ? run.id : idLike()}/actions`,
            body: mutate(runAction()),
          };
        case 9:
          return {
            method: "PATCH",
            path: `/api/pickruns/${run.id}`,
            body: mutate({
              version: run.version,
              actions: [
                { action: "ModifyPickRunLineItem", id: run.pickLineItems?.[0]?.id ?? "x", picked: 1 },
              ],
            }),
          };
        default:
          return {
            method: pick(["POST", "PATCH", "PUT"]),
            path: pick([
              "/api/pickjobs",
              `/api/pickjobs/${j.id}/actions`,
              "/api/pickruns",
              "/api/pickjobs/search",
            ]),
            body: pick(["{", "[1,2", "null", '"str"', "1e999", '{"name":}', "\u0000"]),
            headers: { "content-type": pick(["application/json", "text/plain", ""]) },
          };
      }
    };

    const classes = await fuzzRequests(sys, token, f, 300, request);
    console.log(`seed ${SEED}: ${JSON.stringify(classes)}`);
    // Bodies one change away from valid get through to the services: some even succeed.
    expect(classes["2xx"] ?? 0, `seed ${SEED}`).toBeGreaterThan(5);
    // The system still works afterwards.
    const api = sys.as(token);
    const after = await api("POST", "/api/pickjobs", pickJobBody(facilityId));
    expect(after.status, after.text).toBe(201);
    expect((await api("GET", `/api/pickjobs/${after.body.id}`)).status).toBe(200);
  });
});
