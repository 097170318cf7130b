/**
 * The tenant's handover configuration: the reasons a recipient may give for refusing items at
 * handover (the reference's AvailableRefusedReason, read by GET
 * /api/configurations/handover/refusereasons). The reference only reads them; they are written with
 * our PUT /api/configurations/handover, as the return configuration: none until the first PUT
 * (201; the version it names is not checked), later PUTs replace it on the current version (200;
 * 409 when stale). Without one, a tenant has no refuse reasons. Stored in its localized form:
 * `refusedReason` carries the text of the first locale given. Pure functions.
 */
import { invalid } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import { type ChangeContext, firstText, type JsonObject } from "./types.ts";

export interface RefusedReason {
  refusedReasonLocalized: Record<string, string>;
  active: boolean;
  refusedReason: string;
}

export interface HandoverConfiguration {
  version: number;
  created: string;
  lastModified: string;
  refusedReasons: RefusedReason[];
}

/** At most this many refuse reasons per tenant (a picker chooses from them on a device). */
export const MAX_REFUSED_REASONS = 100;

/** PUT: the configuration after the write (`current`: the tenant's, undefined before the first). */
export function putHandoverConfiguration(
  current: HandoverConfiguration | undefined,
  body: JsonObject,
  c: Pick<ChangeContext, "now">,
): HandoverConfiguration {
  if (current) requireCurrentVersion("handover configuration", current, body.version);
  else if (typeof body.version !== "number" || !Number.isInteger(body.version)) {
    throw invalid("VERSION_REQUIRED", "version is required.", "/version");
  }
  const given = body.refusedReasons;
  if (!Array.isArray(given))
    throw invalid("INVALID_VALUE", "refusedReasons must be a list.", "/refusedReasons");
  if (given.length > MAX_REFUSED_REASONS) {
    throw invalid("LIMIT_EXCEEDED", `At most ${MAX_REFUSED_REASONS} refuse reasons.`, "/refusedReasons");
  }
  const at = c.now.toISOString();
  return {
    version: current ? current.version + 1 : 1,
    created: current?.created ?? at,
    lastModified: at,
    refusedReasons: (given as JsonObject[]).map((r, i) => {
      if (typeof r?.active !== "boolean") {
        throw invalid(
          "ACTIVE_REQUIRED",
          "active is required (true or false).",
          `/refusedReasons/${i}/active`,
        );
      }
      return {
        refusedReasonLocalized: r.refusedReasonLocalized as Record<string, string>,
        active: r.active,
        refusedReason: firstText(r.refusedReasonLocalized, `/refusedReasons/${i}/refusedReasonLocalized`),
      };
    }),
  };
}

/** GET .../refusereasons: the tenant's refuse reasons, none without a configuration. */
export const refusedReasons = (c: HandoverConfiguration | undefined): RefusedReason[] =>
  c?.refusedReasons ?? [];
