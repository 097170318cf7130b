/**
 * End to end: a pick job is created, and the platform tells people and systems. A CLIENT
 * notification is found by search within 2 s and pushed over the SSE stream; an e-mail per receiver
 * arrives at a real local SMTP server in the receiver's language; webhooks reach a local receiver
 * signed so that `standardwebhooks` verifies them; a receiver answering 500 three times then 200
 * gets the event exactly once more after backoff; a receiver that is down for good ends in the dead
 * letters; a receiver that hangs delays nobody else.
 */

import { startWebhookReceiver, type WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import { type MailCapture, startMailCapture } from "@fop/notifications/dev/mail-capture";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let token: string;
let smtp: MailCapture;
let hooks: WebhookReceiver;
let facilityId: string;

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};

/** The SSE stream as a client reads it: events parsed as they arrive. */
async function openStream(bearer: string) {
  const abort = new AbortController();
  const res = await fetch(`${sys.baseUrl}/api/notifications/stream`, {
    headers: { authorization: `Bearer ${bearer}`, accept: "text/event-stream" },
    signal: abort.signal,
  });
  const events: { event: string; id: string; data: any }[] = [];
  let comments = 0;
  const reader = res.body!.getReader();
  void (async () => {
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += Buffer.from(value).toString("utf8");
        for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const fields = Object.fromEntries(
            block
              .split("\n")
              .filter((l) => !l.startsWith(":"))
              .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
          );
          if (block.startsWith(":")) comments++;
          if (fields.data) events.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data) });
        }
      }
    } catch {}
  })();
  return { res, events, comments: () => comments, close: () => abort.abort() };
}

beforeAll(async () => {
  smtp = await startMailCapture();
  hooks = await startWebhookReceiver((path, nth) =>
    path === "/flaky" ? (nth <= 3 ? 500 : 200) : path === "/slow" ? "hang" : 200,
  );
  sys = await startSystem({ serviceEnv: { SMTP_URL: smtp.url } });
  token = await sys.token("acme", { user: "nora.notify" });
  api = sys.as(token);
  const facility = await api("POST", "/api/facilities", { name: "Store 1", address: facilityAddress });
  expect(facility.status, facility.text).toBe(201);
  facilityId = facility.body.id;
});
afterAll(async () => {
  await sys?.close();
  await hooks?.close();
  await smtp?.close();
});

describe("a pick job created is told to people and systems", () => {
  it("CLIENT by search within 2 s and live, EMAIL per language, signed webhooks with backoff and dead letters", async () => {
    const config = await api("PUT", "/api/configurations/notifications", {
      channels: [
        { type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] },
        {
          type: "EMAIL",
          enabled: true,
          events: ["PICK_JOB_CREATED"],
          receiver: [
            { email: "lena@example.com", language: "de_DE" },
            { email: "sam@example.com", language: "en_US" },
          ],
        },
        { type: "CLIENT", enabled: false, events: ["PICK_JOB_CREATED"] },
      ],
    });
    expect(config.status, config.text).toBe(201);

    const subscribe = async (name: string, callbackUrl: string) => {
      const res = await api("POST", "/api/subscriptions", {
        name,
        event: "PICK_JOB_CREATED",
        target: { type: "WEBHOOK", callbackUrl, headers: [{ key: "X-Api-Key", value: `key-${name}` }] },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.secret).toMatch(/^whsec_/);
      return res.body as { id: string; secret: string };
    };
    const ok = await subscribe("ok", hooks.url("/ok"));
    const flaky = await subscribe("flaky", hooks.url("/flaky"));
    const slow = await subscribe("slow", hooks.url("/slow"));
    // A port nobody listens on: down for good.
    const down = await subscribe("down", "http://127.0.0.1:9/down");

    const stream = await openStream(token);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get("content-type")).toMatch(/^text\/event-stream/);

    const started = Date.now();
    const job = await api("POST", "/api/pickjobs", pickJobBody(facilityId));
    expect(job.status, job.text).toBe(201);

    // CLIENT: found by search within 2 s.
    const found = await eventually(
      async () => {
        const res = await api("POST", "/api/notifications/search", {
          query: { facilityRef: { eq: facilityId } },
        });
        return res.body.notifications?.length ? res.body : undefined;
      },
      2_000,
      25,
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(2_000);
    expect(found.notifications).toHaveLength(1); // the disabled channel made none
    const n = found.notifications[0];
    conformant("NotificationPaginatedResult", found);
    expect(n).toMatchObject({
      type: "CLIENT",
      category: "FACILITY",
      status: "OPEN",
      event: "PICK_JOB_CREATED",
      priority: { label: "MEDIUM", sequence: 2 },
      version: 1,
    });
    expect(n.payload.entityLinks).toEqual(
      expect.arrayContaining([
        { ref: job.body.id, type: "PICK_JOB" },
        { ref: facilityId, type: "FACILITY" },
      ]),
    );
    expect(n.payload.messageLocalized.de_DE).toContain("Pickauftrag R456728546");
    expect(n.payload.messageLocalized.en_US).toContain("Pick job R456728546");

    // Live over SSE, the same document.
    await eventually(async () => stream.events.length > 0, 2_000, 25);
    expect(stream.events[0]).toMatchObject({ event: "notification", id: n.id, data: n });
    stream.close();

    // EMAIL: one per receiver, in their language.
    await eventually(async () => smtp.mails.length >= 2, 5_000);
    const byTo = Object.fromEntries(smtp.mails.map((m) => [m.to[0], m]));
    expect(Object.keys(byTo).sort()).toEqual(["lena@example.com", "sam@example.com"]);
    expect(byTo["lena@example.com"]).toMatchObject({ subject: "Neuer Pickauftrag", language: "de" });
    expect(byTo["lena@example.com"]!.text).toContain(
      `Pickauftrag R456728546 wurde in Filiale ${facilityId} angelegt.`,
    );
    expect(byTo["lena@example.com"]!.html).toContain("<h1>Neuer Pickauftrag</h1>");
    expect(byTo["sam@example.com"]).toMatchObject({ subject: "New pick job", language: "en" });
    expect(byTo["sam@example.com"]!.text).toContain("Pick job R456728546 was created");

    // WEBHOOK: delivered and verifiable, while /slow hangs (it delays nobody).
    const [first] = await eventually(
      async () => (hooks.on("/ok").length ? hooks.on("/ok") : undefined),
      2_000,
      25,
    );
    expect(first!.at - started).toBeLessThan(2_000);
    const verified = new Webhook(ok.secret).verify(
      first!.body,
      first!.headers as Record<string, string>,
    ) as any;
    expect(verified).toMatchObject({
      event: "PICK_JOB_CREATED",
      payload: { id: job.body.id, facilityRef: facilityId },
    });
    expect(first!.headers["webhook-id"]).toBe(verified.eventId);
    expect(first!.headers["x-api-key"]).toBe("key-ok");
    // Another subscription's secret does not verify it.
    expect(() =>
      new Webhook(flaky.secret).verify(first!.body, first!.headers as Record<string, string>),
    ).toThrow();

    // 500, 500, 500, then 200: exactly one more delivery after growing delays, then no more.
    await eventually(async () => hooks.on("/flaky").length >= 4, 10_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const flakyCalls = hooks.on("/flaky");
    expect(flakyCalls).toHaveLength(4);
    expect(new Set(flakyCalls.map((c) => c.headers["webhook-id"]))).toEqual(new Set([verified.eventId]));
    const gaps = flakyCalls.slice(1).map((c, i) => c.at - flakyCalls[i]!.at);
    // Backoff doubles from DELIVERY_RETRY_BASE_MS (200 in the test system): at least 200, 400, 800 ms
    // apart (a busy machine only adds to that; 10% slack for timer granularity).
    for (const [i, gap] of gaps.entries()) {
      expect(gap, `gap ${i + 1} of ${JSON.stringify(gaps)}`).toBeGreaterThanOrEqual(0.9 * 200 * 2 ** i);
    }
    for (const c of flakyCalls) new Webhook(flaky.secret).verify(c.body, c.headers as Record<string, string>);
    expect(hooks.on("/ok")).toHaveLength(1);

    // Down for good: five attempts, then a dead letter of that subscription only.
    const dead = await eventually(
      async () => {
        const res = await api("GET", `/api/subscriptions/${down.id}/deadletters`);
        return res.body.total === 1 ? res.body : undefined;
      },
      15_000,
      200,
    );
    expect(dead.deadLetters[0]).toMatchObject({
      eventId: verified.eventId,
      event: "PICK_JOB_CREATED",
      callbackUrl: "http://127.0.0.1:9/down",
      attempts: 5,
      lastStatus: null,
    });
    expect(dead.deadLetters[0].payload).toMatchObject({
      eventId: verified.eventId,
      payload: { id: job.body.id },
    });
    expect((await api("GET", `/api/subscriptions/${ok.id}/deadletters`)).body.total).toBe(0);
    expect((await api("GET", `/api/subscriptions/${flaky.id}/deadletters`)).body.total).toBe(0);
    expect(hooks.on("/slow").length).toBeGreaterThanOrEqual(1);
    await api("DELETE", `/api/subscriptions/${slow.id}`);
  }, 60_000);

  it("a platform kind our services emit as finer kinds arrives under the platform's name", async () => {
    const res = await api("POST", "/api/subscriptions", {
      name: "returns",
      event: "ITEM_RETURN_JOB_UPDATED",
      target: { type: "WEBHOOK", callbackUrl: hooks.url("/returns") },
    });
    expect(res.status, res.text).toBe(201);
    const job = await api("POST", "/api/itemreturnjobs", {
      originFacilityRefs: [facilityId],
      status: "OPEN",
      consumerAddresses: [facilityAddress],
      returnableLineItems: [{ article: { tenantArticleId: "A", title: "T" }, delivered: 1 }],
    });
    expect(job.status, job.text).toBe(200);
    const started = await api("POST", `/api/itemreturnjobs/${job.body.id}/actions`, {
      name: "StartItemReturnJob",
      version: 1,
    });
    expect(started.status, started.text).toBe(200);
    const [hook] = await eventually(async () =>
      hooks.on("/returns").length ? hooks.on("/returns") : undefined,
    );
    const body = new Webhook(res.body.secret).verify(
      hook!.body,
      hook!.headers as Record<string, string>,
    ) as any;
    expect(body).toMatchObject({
      event: "ITEM_RETURN_JOB_UPDATED",
      payload: { id: job.body.id, status: "IN_PROGRESS" },
    });
    // The creation is not an update: one delivery only.
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.on("/returns")).toHaveLength(1);
  });
});
