/** Small helpers between protobuf messages and the REST/domain shapes. */
import type { DescEnum, JsonObject as StructJson } from "@bufbuild/protobuf";
import { type Timestamp, timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { invalid } from "../errors.ts";
import type { JsonObject } from "../json.ts";

/**
 * 400 REMOVED_FIELD when a request carries fields its message no longer declares (protobuf keeps
 * them as `$unknown`): a caller built on an older contract, e.g. a list's filters as separate
 * fields before they moved into `filters`, is told so instead of having them ignored.
 */
export function refuseUnknownFields(req: { $unknown?: { no: number }[] | undefined }, hint: string): void {
  const unknown = req.$unknown ?? [];
  if (unknown.length === 0) return;
  throw invalid(
    "REMOVED_FIELD",
    `The request has field number ${unknown.map((u) => u.no).join(", ")}, which this contract no longer has: ${hint}`,
  );
}

/** A request's `Struct` body as the document the use cases take (an absent body: `{}`). */
export const structDocument = (body: StructJson | undefined): JsonObject => (body ?? {}) as JsonObject;

/** A document as a message's `document_json` bytes: its JSON, UTF-8 encoded. */
export const documentJson = (doc: unknown): Uint8Array => Buffer.from(JSON.stringify(doc), "utf8");

/** The REST name of an enum value (FACILITY_TYPE_SUPPLIER -> SUPPLIER); undefined for *_UNSPECIFIED. */
export function enumName(desc: DescEnum, value: number): string | undefined {
  if (value === 0) return undefined;
  return desc.value[value]?.localName;
}

/** The enum number for a REST name (SUPPLIER -> FACILITY_TYPE_SUPPLIER's number); undefined when unknown. */
export function enumValue(desc: DescEnum, name: string): number | undefined {
  const v = desc.values.find((x) => x.localName === name && x.number !== 0);
  return v?.number;
}

export const toTimestamp = (d: Date): Timestamp => timestampFromDate(d);
export const fromTimestamp = (t: Timestamp | undefined): Date => (t ? timestampDate(t) : new Date(0));
/** ISO 8601 UTC with milliseconds, as the REST API shows timestamps. */
export const isoTimestamp = (t: Timestamp | undefined): string | undefined =>
  t ? timestampDate(t).toISOString() : undefined;
