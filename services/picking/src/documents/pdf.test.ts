import { describe, expect, it } from "vitest";
import { PICK_JOB_STATUSES, type PickJob, type PickLineItem } from "../domain/types.ts";
import { hasDocument, labelsFor, printable, renderDocument } from "./pdf.ts";

const now = new Date("2026-01-01T00:00:00Z");

function job(over: Partial<PickJob> = {}): PickJob {
  return {
    id: "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
    version: 3,
    created: "2026-01-01T00:00:00.000Z",
    lastModified: "2026-01-01T00:00:00.000Z",
    shortId: "K7Q2XM",
    facilityRef: "fac-1",
    orderDate: "2020-02-03T08:45:50.525Z",
    tenantOrderId: "R456728546",
    status: "PICKED",
    resetBlocked: false,
    anonymized: false,
    documentsRef: "documents/x",
    workflowInformation: { isAvailable: false },
    deliveryinformation: {
      channel: "SHIPPING",
      targetTime: "2020-02-03T09:45:51.525Z",
      details: {
        shipping: {
          recipientaddress: {
            firstName: "Maxine",
            lastName: "Müller 日本",
            street: "Hauptstr.",
            houseNumber: "42a",
            postalCode: "40764",
            city: "Langenfeld",
            country: "DE",
          },
        },
      },
    },
    pickLineItems: [
      {
        id: "l1",
        article: { tenantArticleId: "4711", title: "Cologne Water" },
        quantity: 4,
        picked: 4,
        status: "CLOSED",
      },
      {
        id: "l2",
        article: { tenantArticleId: "0815", title: "Unpicked Soap" },
        quantity: 2,
        picked: 0,
        status: "CLOSED",
        substituteLineItems: [
          {
            id: "s1",
            article: { tenantArticleId: "0816", title: "Substitute Soap" },
            quantity: 2,
            picked: 2,
          },
          {
            id: "s2",
            article: { tenantArticleId: "0817", title: "Unpicked Substitute" },
            quantity: 1,
            picked: 0,
          },
        ],
      },
    ],
    transfers: [
      { id: "t-1", type: "RECEIVER" },
      { id: "t-2", type: "SUPPLIER" },
    ],
    ...over,
  };
}

const line = (i: number, over: Partial<PickLineItem> = {}): PickLineItem => ({
  id: `l${i}`,
  article: { tenantArticleId: `ART-${i}`, title: `Article number ${i}` },
  quantity: 1,
  picked: 1,
  status: "CLOSED",
  ...over,
});

const latin1 = (pdf: Uint8Array): string => Buffer.from(pdf).toString("latin1");

/**
 * The text drawn in each uncompressed content stream (one per page, in page order). pdfkit draws
 * standard-font text as `[<hex> kerning <hex> ...] TJ`, the hex being WinAnsi codes: decode the hex
 * runs (kerning dropped), one text fragment a line.
 */
function pagesText(pdf: Uint8Array): string[] {
  return [...latin1(pdf).matchAll(/stream\n([\s\S]*?)\nendstream/g)]
    .map((s) => s[1]!)
    .filter((s) => s.includes(" TJ"))
    .map((s) =>
      [...s.matchAll(/\[((?:<[0-9a-f]*>\s*-?[\d.]*\s*)+)\] TJ/g)]
        .map((m) =>
          [...m[1]!.matchAll(/<([0-9a-f]*)>/g)]
            .map((h) => Buffer.from(h[1]!, "hex").toString("latin1"))
            .join(""),
        )
        .join("\n"),
    );
}
const drawnText = (pdf: Uint8Array): string => pagesText(pdf).join("\n");

const pageCount = (pdf: Uint8Array): number => (latin1(pdf).match(/\/Type \/Page\b/g) ?? []).length;

describe("which jobs have which document", () => {
  it("a return note: SHIPPING jobs that are PICKED or CLOSED", () => {
    for (const channel of ["SHIPPING", "COLLECT"] as const) {
      for (const status of PICK_JOB_STATUSES) {
        const expected = channel === "SHIPPING" && (status === "PICKED" || status === "CLOSED");
        const j = job({ status, deliveryinformation: { channel }, transfers: [] });
        expect(hasDocument(j, "RETURN_NOTE"), `${channel} ${status}`).toBe(expected);
      }
    }
  });

  it("a transfer label: jobs with at least one transfer, whatever channel and status", () => {
    for (const status of PICK_JOB_STATUSES) {
      for (const channel of ["SHIPPING", "COLLECT"] as const) {
        const j = (transfers: PickJob["transfers"]) =>
          job({ status, deliveryinformation: { channel }, transfers });
        expect(hasDocument(j([{ id: "t", type: "SUPPLIER" }]), "TRANSFER_LABEL")).toBe(true);
        expect(hasDocument(j([]), "TRANSFER_LABEL")).toBe(false);
        expect(hasDocument(j(undefined), "TRANSFER_LABEL")).toBe(false);
      }
    }
  });
});

describe("text Helvetica can draw", () => {
  it("keeps Latin-1 and WinAnsi's extras, replaces the rest with one ? per character", () => {
    expect(printable("Müller ÆØÅ ß")).toBe("Müller ÆØÅ ß");
    expect(printable("12 € – “quoted” …")).toBe("12 € – “quoted” …");
    expect(printable("日本 Ωmega 🙂!")).toBe("?? ?mega ?!");
    expect(printable("a\tb\nc\u0000d\u0085")).toBe("a b c?d?");
    expect(printable(42)).toBe("42");
    expect(printable(null)).toBe("");
    expect(printable({ a: 1 })).toBe("");
  });
});

describe("return note", () => {
  it("is a deterministic PDF listing what was picked, substitutes included", async () => {
    const a = await renderDocument(job(), "RETURN_NOTE", now, { compress: false });
    const b = await renderDocument(job(), "RETURN_NOTE", now, { compress: false });
    expect(a.fileName).toBe("returnnote-K7Q2XM.pdf");
    expect(Buffer.from(a.content).equals(Buffer.from(b.content))).toBe(true);
    const raw = latin1(a.content);
    expect(raw.startsWith("%PDF-")).toBe(true);
    expect(raw.trimEnd().endsWith("%%EOF")).toBe(true);
    // pdfkit writes the dates as indirect objects: `/CreationDate 16 0 R` ... `16 0 obj\n(D:...)`.
    for (const key of ["CreationDate", "ModDate"]) {
      const ref = raw.match(new RegExp(`/${key} (\\d+) 0 R`))?.[1];
      expect(raw).toContain(`\n${ref} 0 obj\n(D:20260101000000Z)\n`);
    }
    expect(pageCount(a.content)).toBe(1);

    const text = drawnText(a.content);
    for (const s of [
      "Cologne Water",
      "4711",
      "Substitute Soap",
      "0816",
      "R456728546",
      "K7Q2XM",
      "2020-02-03",
    ]) {
      expect(text).toContain(s);
    }
    expect(text).not.toContain("Unpicked Soap");
    expect(text).not.toContain("0815");
    expect(text).not.toContain("Unpicked Substitute");
    expect(text).toContain("Maxine Müller ??"); // non-Latin-1 replaced, not a crash
    expect(text).toContain("Hauptstr. 42a");
    expect(text).toContain("40764 Langenfeld");
    expect(text).toContain("How to return");
    expect(text).toContain("Return code: K7Q2XM");
  });

  it("depends on `now` only through its dates; compressed by default", async () => {
    const a = await renderDocument(job(), "RETURN_NOTE", now);
    const b = await renderDocument(job(), "RETURN_NOTE", now);
    const later = await renderDocument(job(), "RETURN_NOTE", new Date("2026-01-02T00:00:00Z"));
    expect(Buffer.from(a.content).equals(Buffer.from(b.content))).toBe(true);
    expect(Buffer.from(a.content).equals(Buffer.from(later.content))).toBe(false);
    expect(latin1(a.content)).toContain("/FlateDecode");
    expect(drawnText(a.content)).toBe("");
  });

  it("falls back to the postal address", async () => {
    const j = job({
      deliveryinformation: {
        channel: "SHIPPING",
        details: {
          shipping: {
            postalAddress: {
              companyName: "ACME GmbH",
              street: "Ring",
              houseNumber: "1",
              postalCode: "10115",
              city: "Berlin",
              country: "DE",
            },
          },
        },
      },
    });
    const text = drawnText((await renderDocument(j, "RETURN_NOTE", now, { compress: false })).content);
    expect(text).toContain("ACME GmbH");
    expect(text).toContain("Ring 1");
    expect(text).toContain("10115 Berlin");
  });

  it("breaks a long table across pages, every row whole on one page", async () => {
    const lines = Array.from({ length: 80 }, (_, i) =>
      line(
        i,
        i % 9 === 0
          ? { article: { tenantArticleId: `ART-${i}`, title: `Article number ${i} ${"long ".repeat(40)}€` } }
          : {},
      ),
    );
    const { content } = await renderDocument(job({ pickLineItems: lines }), "RETURN_NOTE", now, {
      compress: false,
    });
    const pages = pagesText(content);
    expect(pages.length).toBeGreaterThan(1);
    expect(pageCount(content)).toBe(pages.length);
    for (let i = 0; i < 80; i++) {
      const onPage = pages.filter((p) => new RegExp(`^Article number ${i}\\b`, "m").test(p));
      expect(onPage, `row ${i}`).toHaveLength(1);
      expect(onPage[0], `row ${i}`).toMatch(new RegExp(`^ART-${i}$`, "m"));
    }
    for (const page of pages)
      expect(page.startsWith("Article\nArticle no.\nQty") || page.startsWith("Return note")).toBe(true);
    expect(drawnText(content)).toContain("\x80"); // the euro sign, WinAnsi code 0x80
  });
});

describe("delivery note", () => {
  it("exists for every job, whatever channel and status", () => {
    for (const status of PICK_JOB_STATUSES) {
      expect(hasDocument(job({ status }), "DELIVERY_NOTE")).toBe(true);
      expect(
        hasDocument(
          job({ status, deliveryinformation: { channel: "COLLECT" }, transfers: [] }),
          "DELIVERY_NOTE",
        ),
      ).toBe(true);
    }
  });

  it("lists every line with ordered and picked quantities, picked substitutes marked", async () => {
    const { content, fileName } = await renderDocument(job(), "DELIVERY_NOTE", now, { compress: false });
    expect(fileName).toBe("deliverynote-K7Q2XM.pdf");
    expect(pageCount(content)).toBe(1);
    const text = drawnText(content);
    expect(text.startsWith("Delivery note")).toBe(true);
    for (const s of ["Order: R456728546", "Order date: 2020-02-03", "Pick job: K7Q2XM", "Deliver to"]) {
      expect(text).toContain(s);
    }
    expect(text).toContain("Article\nArticle no.\nOrdered\nPicked");
    // Unlike the return note, unpicked lines are listed too (ordered 2, picked 0).
    expect(text).toContain("Unpicked Soap\n0815\n2\n0");
    expect(text).toContain("Cologne Water\n4711\n4\n4");
    expect(text).toContain("Substitute Soap (substitute)\n0816\n2\n2");
    expect(text).not.toContain("Unpicked Substitute");
  });

  it("speaks German for de locales and uses the articles' localized titles", async () => {
    const lines: PickLineItem[] = [
      line(1, { article: { tenantArticleId: "A1", title: "Soap", titleLocalized: { de_DE: "Seife" } } }),
      line(2, { article: { tenantArticleId: "A2", title: "Towel" } }),
    ];
    const de = drawnText(
      (
        await renderDocument(job({ pickLineItems: lines }), "DELIVERY_NOTE", now, {
          compress: false,
          locale: "de_DE",
        })
      ).content,
    );
    expect(de.startsWith("Lieferschein")).toBe(true);
    expect(de).toContain("Bestellung: R456728546");
    expect(de).toContain("Artikel\nArtikelnr.\nBestellt\nGeliefert");
    expect(de).toContain("Seife\nA1");
    expect(de).toContain("Towel\nA2"); // no German title: the title as it is
    const dash = drawnText(
      (
        await renderDocument(job({ pickLineItems: lines }), "DELIVERY_NOTE", now, {
          compress: false,
          locale: "de-DE",
        })
      ).content,
    );
    expect(dash).toContain("Seife\nA1");
    const en = drawnText(
      (
        await renderDocument(job({ pickLineItems: lines }), "DELIVERY_NOTE", now, {
          compress: false,
          locale: "en_US",
        })
      ).content,
    );
    expect(en).toContain("Soap\nA1");
    expect(en).not.toContain("Seife");
    expect(labelsFor("de").deliveryNote).toBe("Lieferschein");
    expect(labelsFor("DE-at").deliveryNote).toBe("Lieferschein");
    expect(labelsFor("fr_FR").deliveryNote).toBe("Delivery note");
    expect(labelsFor(undefined).deliveryNote).toBe("Delivery note");
  });
});

describe("transfer label", () => {
  it("has one A6 page per transfer with the transfer's data", async () => {
    const a = await renderDocument(job(), "TRANSFER_LABEL", now, { compress: false });
    const b = await renderDocument(job(), "TRANSFER_LABEL", now, { compress: false });
    expect(a.fileName).toBe("transferlabel-K7Q2XM.pdf");
    expect(Buffer.from(a.content).equals(Buffer.from(b.content))).toBe(true);
    const raw = latin1(a.content);
    expect(raw.startsWith("%PDF-")).toBe(true);
    expect(raw.trimEnd().endsWith("%%EOF")).toBe(true);
    expect(pageCount(a.content)).toBe(2);
    expect(raw).toContain("/MediaBox [0 0 297.64 419.53]");
    const [first, second] = pagesText(a.content);
    for (const [page, id, type] of [
      [first, "t-1", "RECEIVER"],
      [second, "t-2", "SUPPLIER"],
    ] as const) {
      expect(page).toContain(`Transfer: ${id}`);
      expect(page).toContain(`Type: ${type}`);
      expect(page).toContain("Facility: fac-1");
      expect(page).toContain("Order: R456728546");
      expect(page).toContain("Target time: 2020-02-03T09:45:51.525Z");
      expect(page).toContain("Items: 6"); // 4 picked + 2 substitutes picked
      expect(page).toContain("K7Q2XM");
    }
    const compressed = await renderDocument(job(), "TRANSFER_LABEL", now);
    expect(compressed.content.length).toBeLessThan(a.content.length);
  });

  it("counts ordered items while nothing is picked, leaves out a missing target time", async () => {
    const j = job({
      status: "OPEN",
      deliveryinformation: { channel: "COLLECT" },
      pickLineItems: [line(1, { quantity: 3, picked: 0 }), line(2, { quantity: 5, picked: 0 })],
      transfers: [{ id: "t-1", type: "SUPPLIER" }],
    });
    const { content } = await renderDocument(j, "TRANSFER_LABEL", now, { compress: false });
    const text = drawnText(content);
    expect(text).toContain("Items: 8");
    expect(text).not.toContain("Target time");
  });

  it("stays one page per transfer however long the values", async () => {
    const long = "x".repeat(500);
    const j = job({
      facilityRef: long,
      tenantOrderId: `${long}日本`,
      transfers: Array.from({ length: 3 }, (_, i) => ({ id: `${long}-${i}`, type: "SUPPLIER" as const })),
    });
    const { content } = await renderDocument(j, "TRANSFER_LABEL", now, { compress: false });
    expect(pageCount(content)).toBe(3);
    expect(drawnText(content)).toContain("Facility: xxx");
    expect(drawnText(content)).toContain("x...");
  });
});
