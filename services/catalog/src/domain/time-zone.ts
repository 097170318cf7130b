/**
 * Resolves a facility address's time zone id into the platform's TimeZone shape (id, name, standard
 * offset without daylight saving, source), using the IANA database built into the runtime.
 */

import { invalid } from "@fop/kit/errors";
import type { JsonObject } from "@fop/kit/json";

function offsetSeconds(timeZone: string, at: Date): number {
  const part = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")?.value;
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(part ?? "");
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60);
}

export function resolveTimeZone(timeZoneId: string, year: number): JsonObject {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timeZoneId });
  } catch {
    throw invalid(
      "INVALID_TIME_ZONE",
      `${JSON.stringify(timeZoneId)} is not an IANA time zone such as Europe/Berlin.`,
      "/address/resolvedTimeZone/timeZoneId",
    );
  }
  const jan = new Date(Date.UTC(year, 0, 15));
  const jul = new Date(Date.UTC(year, 6, 15));
  const [standard, at] =
    offsetSeconds(timeZoneId, jan) <= offsetSeconds(timeZoneId, jul)
      ? [offsetSeconds(timeZoneId, jan), jan]
      : [offsetSeconds(timeZoneId, jul), jul];
  const name =
    new Intl.DateTimeFormat("en-US", { timeZone: timeZoneId, timeZoneName: "long" })
      .formatToParts(at)
      .find((p) => p.type === "timeZoneName")?.value ?? timeZoneId;
  return { timeZoneId, timeZoneName: name, offsetInSeconds: standard, source: "IANA" };
}

/** The address with its resolvedTimeZone completed (when it names a time zone). */
export function withResolvedTimeZone(address: JsonObject | null, now: Date): JsonObject | null {
  const tz = address?.resolvedTimeZone as JsonObject | undefined;
  if (!address || !tz || typeof tz.timeZoneId !== "string") return address;
  return { ...address, resolvedTimeZone: resolveTimeZone(tz.timeZoneId, now.getUTCFullYear()) };
}
