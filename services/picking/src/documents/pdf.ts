/**
 * A pick job's documents as PDF, rendered with pdfkit using only the standard PDF fonts built into
 * it (Helvetica): no font files, nothing downloaded or generated at install time.
 *
 * Which job has which document (`hasDocument`; the route answers 404 when a job has none):
 *
 * - RETURN_NOTE exists when `deliveryinformation.channel` is SHIPPING (the note is packed with the
 *   parcel so the consumer can send items back) and the status is PICKED or CLOSED (only then are
 *   the shipped quantities known). One A4 document listing the job's shortId and tenantOrderId, the
 *   order date, the consumer's address (`deliveryinformation.details.shipping.recipientaddress`, else
 *   `postalAddress`: name, street houseNumber, postalCode city, country), a table of what was actually
 *   picked (article title, tenantArticleId, picked quantity; lines picked 0 are left out, picked
 *   substitutes (`substituteLineItems` with picked > 0) are listed with their own article), a short
 *   "how to return" text and the return code (the shortId). The table breaks across pages with its
 *   header repeated.
 * - DELIVERY_NOTE exists for every job (the packing slip that goes with the goods): A4, in the
 *   language of the `locale` asked for (German for `de`/`de_*`, else English; an article's
 *   `titleLocalized` entry for that locale is used when there is one), listing the shortId,
 *   tenantOrderId, order date, the consumer's address as above and a table of every line (article,
 *   tenantArticleId, ordered and picked quantity) plus picked substitutes.
 * - TRANSFER_LABEL exists when the job has at least one entry in `transfers` (an operative transfer
 *   between facilities): one A6 (105 x 148 mm) label page per transfer with the transfer id and type
 *   (SUPPLIER/RECEIVER), facilityRef, shortId, tenantOrderId, the target time
 *   (`deliveryinformation.targetTime`) if any, and the number of items (the sum of picked quantities,
 *   substitutes included, or of the ordered quantities while nothing is picked yet). Every field is
 *   one line, shortened with "..." when too wide, so a label never spills onto a second page.
 *
 * Text is reduced to what Helvetica can encode (WinAnsi: Latin-1 plus a few typographic characters
 * such as the euro sign and curly quotes); any other character becomes "?", so names in any script
 * render instead of crashing or producing garbage.
 *
 * Rendering is deterministic for a job and `now`: the PDF's CreationDate/ModDate come from `now` and
 * the file id pdfkit derives from them, no random ids, so the same request gives the same bytes.
 * File names: `returnnote-<shortId>.pdf`, `deliverynote-<shortId>.pdf`, `transferlabel-<shortId>.pdf`.
 */
import PDFDocument from "pdfkit";
import type { JsonObject, PickJob, PickLineItem } from "../domain/types.ts";

export type DocumentKind = "RETURN_NOTE" | "DELIVERY_NOTE" | "TRANSFER_LABEL";

export interface RenderOptions {
  /** Deflate the page content streams (default true; false leaves the drawn text searchable in the bytes). */
  compress?: boolean;
  /** The delivery note's language, e.g. `de_DE` (default: English). */
  locale?: string;
}

/** Whether the job has this document; the route answers 404 when not. */
export function hasDocument(job: PickJob, kind: DocumentKind): boolean {
  if (kind === "TRANSFER_LABEL") return (job.transfers?.length ?? 0) > 0;
  if (kind === "DELIVERY_NOTE") return true;
  return (
    job.deliveryinformation.channel === "SHIPPING" && (job.status === "PICKED" || job.status === "CLOSED")
  );
}

/** Unicode characters outside Latin-1 that Helvetica's WinAnsi encoding has (pdfkit maps them). */
const WIN_ANSI_EXTRA = new Set(
  "\u20AC\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u017D" +
    "\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u017E\u0178",
);

/**
 * The value as text Helvetica can draw: printable Latin-1 and WinAnsi's extras stay, whitespace
 * controls become spaces, anything else (other scripts, emoji: one "?" per code point) becomes "?".
 */
export function printable(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "";
  let out = "";
  for (const ch of String(value)) {
    const c = ch.codePointAt(0) ?? 0;
    if ((c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRA.has(ch)) out += ch;
    else if (ch === "\t" || ch === "\n" || ch === "\r") out += " ";
    else out += "?";
  }
  return out;
}

const obj = (v: unknown): JsonObject | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;

const joined = (...parts: unknown[]): string =>
  parts
    .map(printable)
    .map((s) => s.trim())
    .filter(Boolean)
    .join(" ");

/** The consumer's address lines (recipient address, else postal address), empty lines dropped. */
function consumerAddress(job: PickJob): string[] {
  const shipping = obj(obj(job.deliveryinformation.details)?.shipping);
  const a = obj(shipping?.recipientaddress) ?? obj(shipping?.postalAddress);
  if (!a) return [];
  return [
    joined(a.salutation, a.firstName, a.lastName),
    joined(a.companyName),
    joined(a.street, a.houseNumber),
    joined(a.additionalAddressInfo),
    joined(a.postalCode, a.city),
    joined(a.country),
  ].filter(Boolean);
}

interface PickedRow {
  title: string;
  articleId: string;
  picked: number;
}

/** What went into the parcel: picked lines and picked substitutes, in line order. */
function pickedRows(lines: PickLineItem[]): PickedRow[] {
  const rows: PickedRow[] = [];
  for (const line of lines) {
    if (line.picked > 0) {
      rows.push({ title: line.article.title, articleId: line.article.tenantArticleId, picked: line.picked });
    }
    for (const sub of line.substituteLineItems ?? []) {
      const picked = sub.picked ?? 0;
      if (picked > 0) rows.push({ title: sub.article.title, articleId: sub.article.tenantArticleId, picked });
    }
  }
  return rows;
}

/** Items on a transfer: what was picked (substitutes included), else what was ordered. */
function itemCount(lines: PickLineItem[]): number {
  let picked = 0;
  let ordered = 0;
  for (const line of lines) {
    picked += Math.max(0, line.picked);
    ordered += Math.max(0, line.quantity);
    for (const sub of line.substituteLineItems ?? []) picked += Math.max(0, sub.picked ?? 0);
  }
  return picked > 0 ? picked : ordered;
}

type Doc = PDFKit.PDFDocument;

/** Ends the document and resolves with all of its bytes. */
function collect(doc: Doc): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on("error", reject);
    doc.end();
  });
}

/** `text` shortened with "..." until it fits `width` in the current font (already printable). */
function shortened(doc: Doc, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  const chars = [...text];
  while (chars.length > 0 && doc.widthOfString(`${chars.join("")}...`) > width) chars.pop();
  return `${chars.join("")}...`;
}

const MAX_TITLE = 300;

interface Column {
  label: string;
  /** Share of the text width; the last column is right-aligned (quantities). */
  share: number;
}

/**
 * Draws a table from the current position on: a bold header with a rule, then the rows; a row
 * never splits across pages, and every new page repeats the header. Leaves `doc.y` below it.
 */
function table(doc: Doc, columns: Column[], rows: string[][]): void {
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const gap = 10;
  const xs: number[] = [];
  const ws: number[] = [];
  let x = left;
  for (const c of columns) {
    xs.push(x);
    ws.push(c.share * width - gap);
    x += c.share * width;
  }
  const last = columns.length - 1;
  const cell = (text: string, i: number, y: number): void => {
    doc.text(text, xs[i], y, { width: ws[i], align: i === last ? "right" : "left" });
  };
  const header = (y: number): number => {
    doc.font("Helvetica-Bold").fontSize(10);
    columns.forEach((c, i) => {
      cell(c.label, i, y);
    });
    doc.font("Helvetica");
    const below = y + doc.currentLineHeight(true) + 2;
    doc
      .moveTo(left, below)
      .lineTo(left + width, below)
      .lineWidth(0.5)
      .stroke();
    return below + 4;
  };

  doc.moveDown();
  // The header and at least one row on the same page.
  if (doc.y + 3 * doc.currentLineHeight(true) > doc.page.maxY()) doc.addPage();
  let y = header(doc.y);
  for (const raw of rows) {
    const row = raw.map((v) => printable(v).slice(0, MAX_TITLE));
    const height = Math.max(...row.map((v, i) => doc.heightOfString(v, { width: ws[i] })));
    // The whole row goes on one page: start a new page (header repeated) when it does not fit.
    if (y + height > doc.page.maxY()) {
      doc.addPage();
      y = header(doc.page.margins.top);
    }
    row.forEach((v, i) => {
      cell(v, i, y);
    });
    y += height + 4;
  }
  doc.x = left;
  doc.y = y;
}

/** The job's order, date and pick job lines, then the consumer's address under `addressTitle`. */
function orderBlock(doc: Doc, job: PickJob, t: Labels, addressTitle: string): void {
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  doc.moveDown(0.5).font("Helvetica").fontSize(10);
  doc.text(`${t.order}: ${printable(job.tenantOrderId ?? job.orderRef ?? job.id)}`);
  doc.text(`${t.orderDate}: ${printable(job.orderDate.slice(0, 10))}`);
  doc.text(`${t.pickJob}: ${printable(job.shortId)}`);
  const address = consumerAddress(job);
  if (address.length > 0) {
    doc.moveDown().font("Helvetica-Bold").text(addressTitle);
    doc.font("Helvetica");
    for (const line of address) doc.text(line, { width });
  }
}

interface Labels {
  order: string;
  orderDate: string;
  pickJob: string;
  article: string;
  articleNo: string;
  ordered: string;
  picked: string;
  deliveryNote: string;
  deliverTo: string;
  substitute: string;
}

const LABELS: Record<"en" | "de", Labels> = {
  en: {
    order: "Order",
    orderDate: "Order date",
    pickJob: "Pick job",
    article: "Article",
    articleNo: "Article no.",
    ordered: "Ordered",
    picked: "Picked",
    deliveryNote: "Delivery note",
    deliverTo: "Deliver to",
    substitute: "substitute",
  },
  de: {
    order: "Bestellung",
    orderDate: "Bestelldatum",
    pickJob: "Pickauftrag",
    article: "Artikel",
    articleNo: "Artikelnr.",
    ordered: "Bestellt",
    picked: "Geliefert",
    deliveryNote: "Lieferschein",
    deliverTo: "Lieferadresse",
    substitute: "Ersatz",
  },
};

/** The labels for a locale such as `de_DE` (German for `de`, English for anything else). */
export function labelsFor(locale: string | undefined): Labels {
  return locale?.toLowerCase().split(/[_-]/)[0] === "de" ? LABELS.de : LABELS.en;
}

/** The article's title in `locale` when it has one (`titleLocalized`), else its title. */
function localTitle(
  article: { title: string; titleLocalized?: unknown },
  locale: string | undefined,
): string {
  const localized = obj(article.titleLocalized);
  // Locales are keyed like de_DE; de-DE names the same one.
  const hit = locale ? localized?.[locale.replace("-", "_")] : undefined;
  return typeof hit === "string" && hit !== "" ? hit : article.title;
}

function returnNote(doc: Doc, job: PickJob): void {
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const t = LABELS.en;
  doc.font("Helvetica-Bold").fontSize(18).text("Return note");
  orderBlock(doc, job, t, "Shipped to");
  table(
    doc,
    [
      { label: t.article, share: 0.58 },
      { label: t.articleNo, share: 0.25 },
      { label: "Qty", share: 0.17 },
    ],
    pickedRows(job.pickLineItems).map((r) => [r.title, r.articleId, String(r.picked)]),
  );
  doc.moveDown(1.5);
  doc.font("Helvetica-Bold").fontSize(10).text("How to return", left, doc.y, { width });
  doc
    .font("Helvetica")
    .text(
      "Put the items you want to return back into the parcel together with this note, " +
        "write the return code on the parcel and hand it to the carrier. " +
        "Returns are accepted within the period stated in the terms of your order.",
      { width },
    );
  doc
    .moveDown()
    .font("Helvetica-Bold")
    .fontSize(14)
    .text(`Return code: ${printable(job.shortId)}`, { width });
}

function deliveryNote(doc: Doc, job: PickJob, locale: string | undefined): void {
  const t = labelsFor(locale);
  doc.font("Helvetica-Bold").fontSize(18).text(t.deliveryNote);
  orderBlock(doc, job, t, t.deliverTo);
  const rows: string[][] = [];
  for (const line of job.pickLineItems) {
    rows.push([
      localTitle(line.article, locale),
      line.article.tenantArticleId,
      String(line.quantity),
      String(line.picked),
    ]);
    for (const sub of line.substituteLineItems ?? []) {
      if ((sub.picked ?? 0) > 0) {
        rows.push([
          `${localTitle(sub.article, locale)} (${t.substitute})`,
          sub.article.tenantArticleId,
          sub.quantity === undefined ? "-" : String(sub.quantity),
          String(sub.picked),
        ]);
      }
    }
  }
  table(
    doc,
    [
      { label: t.article, share: 0.46 },
      { label: t.articleNo, share: 0.22 },
      { label: t.ordered, share: 0.16 },
      { label: t.picked, share: 0.16 },
    ],
    rows,
  );
}

function transferLabels(doc: Doc, job: PickJob): void {
  const items = itemCount(job.pickLineItems);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  /** One line of the label, shortened to fit: it never wraps, so a label stays one page. */
  const line = (text: string, opts: PDFKit.Mixins.TextOptions = {}): void => {
    doc.text(shortened(doc, text, width), left, doc.y, { width, ...opts });
  };
  const transfers = job.transfers ?? [];
  transfers.forEach((transfer, i) => {
    if (i > 0) doc.addPage();
    doc.font("Helvetica-Bold").fontSize(14);
    line(`Transfer label ${i + 1}/${transfers.length}`);
    doc.moveDown(0.3).font("Helvetica").fontSize(9);
    line(`Transfer: ${printable(transfer.id)}`);
    line(`Type: ${printable(transfer.type)}`);
    line(`Facility: ${printable(job.facilityRef)}`);
    line(`Order: ${printable(job.tenantOrderId ?? job.orderRef ?? "-")}`);
    if (job.deliveryinformation.targetTime) {
      line(`Target time: ${printable(job.deliveryinformation.targetTime)}`);
    }
    line(`Items: ${items}`);
    doc.moveDown().font("Helvetica-Bold").fontSize(22);
    line(printable(job.shortId), { align: "center" });
  });
}

/**
 * Renders the document; deterministic for a given job and `now` (the PDF's CreationDate/ModDate are
 * `now`, no random ids), resolves with the PDF bytes and its file name. Call only when
 * `hasDocument(job, kind)`.
 */
export async function renderDocument(
  job: PickJob,
  kind: DocumentKind,
  now: Date,
  opts: RenderOptions = {},
): Promise<{ content: Uint8Array; fileName: string }> {
  const label = kind === "TRANSFER_LABEL";
  const title = {
    RETURN_NOTE: "Return note",
    DELIVERY_NOTE: "Delivery note",
    TRANSFER_LABEL: "Transfer label",
  }[kind];
  const doc = new PDFDocument({
    size: label ? "A6" : "A4",
    margin: label ? 20 : 50,
    compress: opts.compress ?? true,
    info: {
      Title: `${title} ${printable(job.shortId)}`,
      Producer: "fulfillment-ops picking",
      Creator: "fulfillment-ops picking",
      CreationDate: now,
      ModDate: now,
    },
  });
  if (kind === "TRANSFER_LABEL") transferLabels(doc, job);
  else if (kind === "DELIVERY_NOTE") deliveryNote(doc, job, opts.locale);
  else returnNote(doc, job);
  const content = await collect(doc);
  const safeId = job.shortId.replace(/[^A-Za-z0-9_-]/g, "_");
  return { content, fileName: `${kind.replace("_", "").toLowerCase()}-${safeId}.pdf` };
}
