/**
 * The tenant's return configuration (GET/PUT /api/configurations/return): none until the first
 * PUT, which creates it (201; the version it names is not checked: there is nothing to be stale
 * against); later PUTs replace it on the current version (200). Stored and read in its localized
 * form: every return reason gets an `identifier` (1-99, then A-Z, unique; the client's when it
 * gives one), and `reason` / `condition` carry the text of the first locale given. Pure functions.
 */
import { invalid } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import { type ChangeContext, firstText, type JsonObject } from "./types.ts";

export interface ReturnConfiguration {
  version: number;
  created: string;
  lastModified: string;
  active: boolean;
  allowTriggerRefund: boolean;
  availableReturnReasons: JsonObject[];
  availableDecisionReasons: JsonObject[];
  availableItemConditions: JsonObject[];
  returnTypeConfiguration?: JsonObject;
}

/** 1..99 then A..Z: the identifiers the reference allows, in the order they are handed out. */
export const REASON_IDENTIFIERS = [
  ...Array.from({ length: 99 }, (_, i) => String(i + 1)),
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ",
];

function returnReasons(list: unknown): JsonObject[] {
  const given = (Array.isArray(list) ? list : []) as JsonObject[];
  if (given.length > REASON_IDENTIFIERS.length) {
    throw invalid(
      "LIMIT_EXCEEDED",
      `At most ${REASON_IDENTIFIERS.length} return reasons (1-99, A-Z).`,
      "/availableReturnReasons",
    );
  }
  const taken = new Set<string>();
  given.forEach((r, i) => {
    if (r.identifier === undefined || r.identifier === null) return;
    const id = String(r.identifier);
    if (!REASON_IDENTIFIERS.includes(id)) {
      throw invalid(
        "INVALID_IDENTIFIER",
        "identifier must be 1-99 or A-Z.",
        `/availableReturnReasons/${i}/identifier`,
      );
    }
    if (taken.has(id)) {
      throw invalid(
        "DUPLICATE_IDENTIFIER",
        `identifier ${id} is used twice.`,
        `/availableReturnReasons/${i}/identifier`,
      );
    }
    taken.add(id);
  });
  const free = REASON_IDENTIFIERS.filter((id) => !taken.has(id));
  return given.map((r, i) => ({
    ...r,
    identifier:
      r.identifier === undefined || r.identifier === null ? (free.shift() as string) : String(r.identifier),
    reason: firstText(r.reasonLocalized, `/availableReturnReasons/${i}/reasonLocalized`),
  }));
}

/** PUT: the configuration after the write, and whether it is new. */
export function putReturnConfiguration(
  current: ReturnConfiguration | undefined,
  body: JsonObject,
  c: ChangeContext,
): { config: ReturnConfiguration; created: boolean } {
  if (typeof body.active !== "boolean")
    throw invalid("ACTIVE_REQUIRED", "active is required (true or false).", "/active");
  if (current) requireCurrentVersion("return configuration", current, body.version);
  else if (typeof body.version !== "number" || !Number.isInteger(body.version)) {
    throw invalid("VERSION_REQUIRED", "version is required.", "/version");
  }
  const at = c.now.toISOString();
  const decisions = (
    Array.isArray(body.availableDecisionReasons) ? body.availableDecisionReasons : []
  ) as JsonObject[];
  const conditions = (
    Array.isArray(body.availableItemConditions) ? body.availableItemConditions : []
  ) as JsonObject[];
  const config: ReturnConfiguration = {
    version: current ? current.version + 1 : 1,
    created: current?.created ?? at,
    lastModified: at,
    active: body.active,
    allowTriggerRefund: body.allowTriggerRefund === true,
    availableReturnReasons: returnReasons(body.availableReturnReasons),
    availableDecisionReasons: decisions.map((d, i) => ({
      ...d,
      reason: firstText(d.reasonLocalized, `/availableDecisionReasons/${i}/reasonLocalized`),
    })),
    availableItemConditions: conditions.map((x, i) => ({
      ...x,
      condition: firstText(x.conditionLocalized, `/availableItemConditions/${i}/conditionLocalized`),
    })),
  };
  if (body.returnTypeConfiguration)
    config.returnTypeConfiguration = body.returnTypeConfiguration as JsonObject;
  return { config, created: !current };
}
