/**
 * The platform's published TypeScript SDK (@fulfillmenttools/fulfillmenttools-sdk-typescript),
 * unchanged, against us. The SDK talks to https://<project>.api.fulfillmenttools.com/api and signs in
 * at Google's identity toolkit; both lie outside this system, so the test's fetch sends the API calls
 * to our gateway and answers the sign-in with one of our tokens. Everything else — paths, query
 * parameters (arrays repeated, values not percent-encoded), `Content-Type: application/json` on
 * every request, bodyless DELETEs included — is the SDK's own.
 */
import {
  FftApiClient,
  FftCarrierService,
  FftFacilityService,
  FftPickJobService,
  PickJobOrderBy,
  type StrippedPickJobs,
} from "@fulfillmenttools/fulfillmenttools-sdk-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type System, startSystem } from "../../support/system.ts";

const PROJECT = "sdk-compat";
let sys: System;
let sdk: FftApiClient;
const realFetch = globalThis.fetch;
/** Every request the SDK sent: method, path and query, Content-Type. */
const sent: { method: string; url: string; contentType: string | null }[] = [];

beforeAll(async () => {
  sys = await startSystem();
  const idToken = await sys.token("sdk", { roles: ["ADMIN"], user: "sdk-user" });
  const apiBase = `https://${PROJECT}.api.fulfillmenttools.com/api/`;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith("https://identitytoolkit.googleapis.com/")) {
      return Response.json({ idToken, refreshToken: "unused", expiresIn: "3600" });
    }
    if (url.startsWith(apiBase)) {
      const ours = `${sys.baseUrl}/api/${url.slice(apiBase.length)}`;
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? "GET",
        url: url.slice(apiBase.length - 1),
        contentType: headers.get("content-type"),
      });
      return realFetch(ours, init);
    }
    return realFetch(input, init);
  }) as typeof fetch;
  sdk = new FftApiClient(PROJECT, "user@example.com", "password", "api-key", {
    getLogger: () => ({ debug() {}, log() {}, info() {}, warn() {}, error() {} }) as never,
  });
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await sys?.close();
});

describe("the platform's SDK, unchanged", () => {
  it("facilities: create, find by tenantFacilityId, read, list by NAME, take offline and delete", async () => {
    const facilities = new FftFacilityService(sdk);
    const created = await facilities.createFacility({
      name: "SDK Store",
      tenantFacilityId: "SDK-1",
      address: facilityAddress,
    } as never);
    expect(created).toMatchObject({ name: "SDK Store", tenantFacilityId: "SDK-1", version: 1 });
    expect(await facilities.getFacilityId("SDK-1")).toBe(created.id);
    expect((await facilities.getFacility(created.id)).id).toBe(created.id);
    const listed = await facilities.get({ orderBy: "NAME", size: "10" });
    expect(listed.facilities?.map((f) => f.id)).toContain(created.id);

    // PATCH (ModifyFacility status OFFLINE) with the version it read, then a bodyless DELETE that
    // carries Content-Type: application/json.
    expect(await facilities.deleteFacility("SDK-1", true)).toBe(created.id);
    expect(
      (await sys.api("GET", `/api/facilities/${created.id}`, { token: await sys.token("sdk") })).status,
    ).toBe(404);
    const deletes = sent.filter((r) => r.method === "DELETE");
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes.every((r) => r.contentType === "application/json")).toBe(true);
  });

  it("pick jobs: list with the SDK's orderBy and repeated statuses, read, and act", async () => {
    const token = await sys.token("sdk");
    const api = sys.as(token);
    const facility = (
      await api("POST", "/api/facilities", {
        name: "Picks",
        tenantFacilityId: "SDK-2",
        address: facilityAddress,
      })
    ).body;
    const ids: string[] = [];
    for (const targetTime of [
      "2026-05-01T10:00:00.000Z",
      "2026-05-03T10:00:00.000Z",
      "2026-05-02T10:00:00.000Z",
    ]) {
      const res = await api(
        "POST",
        "/api/pickjobs",
        pickJobBody(facility.id, { deliveryinformation: { channel: "COLLECT", targetTime } }),
      );
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const pickJobs = new FftPickJobService(sdk);
    const byTarget: StrippedPickJobs = await pickJobs.getAll({
      facilityRef: facility.id,
      orderBy: PickJobOrderBy.TARGETTIMEDESC,
      status: ["OPEN", "IN_PROGRESS"] as never,
    });
    expect(byTarget.pickjobs?.map((j) => j.id)).toEqual([ids[1], ids[2], ids[0]]);
    expect(sent.some((r) => /status=OPEN&status=IN_PROGRESS/.test(r.url))).toBe(true);

    // The SDK's own work-list query: status=OPEN,IN_PROGRESS,PICKED,PACKABLE&orderBy=TARGET_TIME_DESC.
    const open = await pickJobs.getOpenPickJobsByFacilityRef(facility.id, new Date("2026-01-01T00:00:00Z"));
    expect(open.pickjobs?.map((j) => j.id)).toEqual([ids[1], ids[2], ids[0]]);

    const job = await pickJobs.getById(ids[0]!);
    expect(job.id).toBe(ids[0]);
    const aborted = await pickJobs.abort(job.id, job.version);
    expect(aborted.status).toBe("ABORTED");
    const reset = await pickJobs.reset(aborted.id, aborted.version);
    expect(reset.status).toBe("OPEN");
    const obsolete = await pickJobs.obsolete(reset.id, reset.version);
    expect(obsolete.status).toBe("OBSOLETE");
    // A stale version is the platform's 409, which the SDK surfaces as an error.
    await expect(pickJobs.abort(job.id, job.version)).rejects.toThrow();
  });

  it("carriers: create with the generic client, list, read, and read the default configuration", async () => {
    const created = await sdk.post<{ id: string; version: number }>("carriers", {
      key: "CUSTOM_SDK",
      name: "SDK Parcel",
      credentials: { key: "CUSTOM_SDK", apiKey: "sdk-secret" },
    });
    const carriers = new FftCarrierService(sdk);
    const all = await carriers.getAll();
    expect(all.total).toBeGreaterThanOrEqual(1);
    expect(all.carriers?.map((c) => c.id)).toContain(created.id);
    const carrier = await carriers.get(created.id);
    expect(carrier).toMatchObject({ id: created.id, key: "CUSTOM_SDK", status: "INACTIVE", version: 1 });
    expect(carrier.credentials).toEqual({ key: "CUSTOM_SDK" });
    const config = await carriers.getConfiguration(created.id);
    expect(config).toMatchObject({ carrierRef: created.id, returnLabel: false, version: 1 });
    expect(sent.some((r) => r.url.endsWith(`carriers/${created.id}/configuration`))).toBe(true);
  });

  it("the SDK's generic client: DELETE a category", async () => {
    const category = await sdk.post<{ id: string }>("categories", { nameLocalized: { en_US: "SDK" } });
    const deleted = await sdk.delete<{ id: string }>(`categories/${category.id}`);
    expect(deleted.id).toBe(category.id);
    expect(sent.every((r) => r.contentType === "application/json")).toBe(true);
  });
});
