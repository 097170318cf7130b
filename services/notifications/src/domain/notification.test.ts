import { NOTIFICATION_CHANNEL_EVENTS } from "@fop/contracts/event-kinds";
import { describe, expect, it } from "vitest";
import {
  categoryOf,
  clientNotification,
  type EventSubject,
  entityLinks,
  labelOf,
  PRIORITY_SEQUENCE,
  priorityOf,
} from "./notification.ts";
import { languageOf, render, renderEmail, renderLocalized } from "./templates.ts";

const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "n-1" };

const pickJob: EventSubject = {
  id: "evt-1",
  event: "PICK_JOB_CREATED",
  label: "PJ-4711",
  facilityRef: "fac-1",
  entityType: "PICK_JOB",
  entityRef: "pj-uuid",
  doc: { id: "pj-uuid", shortId: "PJ-4711", orderRef: "order-1", processId: "proc-1" },
};

describe("templates", () => {
  it("renders PICK_JOB_CREATED in English and German, both naming the label and facility", () => {
    const en = render({ event: "PICK_JOB_CREATED", label: "PJ-4711", facilityRef: "fac-1" }, "en");
    const de = render({ event: "PICK_JOB_CREATED", label: "PJ-4711", facilityRef: "fac-1" }, "de");
    expect(en).toEqual({ title: "New pick job", message: "Pick job PJ-4711 was created in facility fac-1." });
    expect(de).toEqual({
      title: "Neuer Pickauftrag",
      message: "Pickauftrag PJ-4711 wurde in Filiale fac-1 angelegt.",
    });
    expect(en.title).not.toBe(de.title);
    expect(en.message).not.toBe(de.message);
    expect(render({ event: "PICK_JOB_CREATED", label: "PJ-1" }, "en").message).toBe(
      "Pick job PJ-1 was created.",
    );
  });

  it("has a distinct text for every channel event kind in both languages", () => {
    for (const event of NOTIFICATION_CHANNEL_EVENTS) {
      const en = render({ event, label: "L-1" }, "en");
      const de = render({ event, label: "L-1" }, "de");
      expect(en.message, event).toContain("L-1");
      expect(de.message, event).toContain("L-1");
      expect(en.title, event).not.toBe(event);
      expect(de.title, event).not.toBe(en.title);
    }
  });

  it("falls back to the event kind for others", () => {
    expect(render({ event: "FACILITY_CREATED", label: "F1", facilityRef: "f" }, "de")).toEqual({
      title: "FACILITY_CREATED",
      message: "FACILITY_CREATED: F1 in Filiale f.",
    });
  });

  it("languageOf: German for de_*, English otherwise", () => {
    expect(languageOf("de_DE")).toBe("de");
    expect(languageOf("DE_de")).toBe("de");
    for (const l of ["en_US", "fr_FR", "nl_NL", "cs_CZ", ""]) expect(languageOf(l)).toBe("en");
  });

  it("renderLocalized keys the texts by en_US and de_DE", () => {
    expect(renderLocalized({ event: "ORDER_CANCELLED", label: "O-1" })).toEqual({
      title: { en_US: "Order cancelled", de_DE: "Bestellung storniert" },
      message: { en_US: "Order O-1 was cancelled.", de_DE: "Bestellung O-1 wurde storniert." },
    });
  });

  it("renderEmail writes German for de_DE and English for fr_FR", () => {
    const de = renderEmail({ event: "ORDER_CANCELLED", label: "O-1" }, "de_DE");
    expect(de).toMatchObject({ language: "de", subject: "Bestellung storniert" });
    expect(de.text).toContain("Bestellung O-1 wurde storniert.");
    expect(de.text).toContain("Benachrichtigungskanals");
    expect(de.html).toContain('<html lang="de">');
    const fr = renderEmail({ event: "ORDER_CANCELLED", label: "O-1" }, "fr_FR");
    expect(fr).toMatchObject({ language: "en", subject: "Order cancelled" });
    expect(fr.text).toContain("Order O-1 was cancelled.");
    expect(fr.html).toContain('<html lang="en">');
  });

  it("renderEmail escapes HTML in the html part only", () => {
    const m = renderEmail({ event: "ORDER_CANCELLED", label: `<script>alert("x&'y")</script>` }, "en_US");
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("&lt;script&gt;alert(&quot;x&amp;&#39;y&quot;)&lt;/script&gt;");
    expect(m.text).toContain(`<script>alert("x&'y")</script>`);
    const f = renderEmail({ event: "<b>EVIL</b>", label: "x" }, "en_US");
    expect(f.subject).toBe("<b>EVIL</b>");
    expect(f.html).toContain("<h1>&lt;b&gt;EVIL&lt;/b&gt;</h1>");
  });
});

describe("notification", () => {
  it("clientNotification's document has exactly the reference Notification fields", () => {
    const n = clientNotification(pickJob, "ch-1", c);
    expect(n).toMatchObject({ id: "n-1", eventId: "evt-1", channelId: "ch-1", facilityRef: "fac-1" });
    expect(Object.keys(n.doc).sort()).toEqual(
      [
        "id",
        "type",
        "category",
        "status",
        "priority",
        "event",
        "payload",
        "version",
        "created",
        "lastModified",
      ].sort(),
    );
    expect(n.doc).toEqual({
      id: "n-1",
      type: "CLIENT",
      category: "FACILITY",
      status: "OPEN",
      priority: { label: "MEDIUM", sequence: 2 },
      event: "PICK_JOB_CREATED",
      payload: {
        title: "New pick job",
        titleLocalized: { en_US: "New pick job", de_DE: "Neuer Pickauftrag" },
        message: "Pick job PJ-4711 was created in facility fac-1.",
        messageLocalized: {
          en_US: "Pick job PJ-4711 was created in facility fac-1.",
          de_DE: "Pickauftrag PJ-4711 wurde in Filiale fac-1 angelegt.",
        },
        entityLinks: [
          { ref: "pj-uuid", type: "PICK_JOB" },
          { ref: "fac-1", type: "FACILITY" },
          { ref: "order-1", type: "ORDER" },
          { ref: "proc-1", type: "PROCESS" },
        ],
      },
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
    });
    expect(Object.keys(n.doc.payload as object).sort()).toEqual(
      ["title", "titleLocalized", "message", "messageLocalized", "entityLinks"].sort(),
    );
  });

  it("entityLinks: the entity, its facility and the refs its document carries, once each", () => {
    expect(entityLinks(pickJob)).toEqual(
      expect.arrayContaining([
        { ref: "pj-uuid", type: "PICK_JOB" },
        { ref: "fac-1", type: "FACILITY" },
      ]),
    );
    expect(
      entityLinks({
        id: "e",
        event: "ORDER_CANCELLED",
        label: "O",
        entityType: "ORDER",
        entityRef: "o-1",
        doc: { orderRef: "o-1", routingPlanRef: "rp-1", processId: "" },
      }),
    ).toEqual([
      { ref: "o-1", type: "ORDER" },
      { ref: "rp-1", type: "ROUTING_PLAN" },
    ]);
    expect(
      entityLinks({
        id: "e",
        event: "FACILITY_UPDATED",
        label: "F",
        entityType: "FACILITY",
        entityRef: "f-1",
        facilityRef: "f-1",
      }),
    ).toEqual([{ ref: "f-1", type: "FACILITY" }]);
    expect(entityLinks({ id: "e", event: "X", label: "x", entityType: "STOCK", entityRef: "s-1" })).toEqual(
      [],
    );
  });

  it("categoryOf and priorityOf", () => {
    expect(categoryOf("PICK_JOB_CREATED")).toBe("FACILITY");
    for (const e of [
      "ORDER_CANCELLED",
      "ROUTING_PLAN_WAITING",
      "UPCOMING_TIME_TRIGGERED_REROUTE",
      "LOCKED_ORDER_CREATED",
    ]) {
      expect(categoryOf(e), e).toBe("ORDER");
    }
    expect(categoryOf("FACILITY_CREATED")).toBe("MISC");
    expect(priorityOf("ROUTING_PLAN_NOT_ROUTABLE")).toBe("HIGH");
    expect(priorityOf("ORDER_FORCE_CANCELLED")).toBe("HIGH");
    expect(priorityOf("ORDER_CANCELLED_BY_EXPIRY")).toBe("HIGH");
    expect(priorityOf("ORDER_CANCELLED")).toBe("MEDIUM");
    expect(priorityOf("PICK_JOB_CREATED")).toBe("MEDIUM");
    expect(priorityOf("ORDER_MODIFIED")).toBe("LOW");
    expect(PRIORITY_SEQUENCE).toEqual({ LOW: 1, MEDIUM: 2, HIGH: 3 });
  });

  it("labelOf prefers the tenant's id, then a short id, else the entity ref", () => {
    expect(labelOf("o-1", { tenantOrderId: "T-1", shortId: "S" })).toBe("T-1");
    expect(labelOf("pj-1", { shortId: "S-1", tenantOrderId: "" })).toBe("S-1");
    expect(labelOf("f-1", { tenantFacilityId: "F-1", name: "Berlin" })).toBe("F-1");
    expect(labelOf("f-1", { name: "Berlin" })).toBe("Berlin");
    expect(labelOf("x-1", { tenantOrderId: 5 })).toBe("x-1");
    expect(labelOf("x-1", undefined)).toBe("x-1");
  });
});
