/**
 * The tenant's transit time configuration (beta): none until the first PUT, which creates it
 * (the version that body names is not checked: there is nothing to be stale against); later PUTs
 * name the current version. Pure functions.
 */
import { CALCULATION_STRATEGIES, type CalculationStrategy } from "@fop/contracts/carriers";
import { invalid } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import type { ChangeContext, JsonObject, TransitTimeConfiguration } from "./types.ts";

function strategyOf(body: JsonObject): CalculationStrategy {
  const s = body.calculationStrategy;
  if (typeof s !== "string" || !(CALCULATION_STRATEGIES as readonly string[]).includes(s)) {
    throw invalid(
      "INVALID_CALCULATION_STRATEGY",
      `calculationStrategy must be ${CALCULATION_STRATEGIES.join(" or ")}.`,
      "/calculationStrategy",
    );
  }
  return s as CalculationStrategy;
}

/** PUT /api/configurations/transittime: the configuration after the write, and whether it is new. */
export function putTransitTime(
  current: TransitTimeConfiguration | undefined,
  body: JsonObject,
  c: ChangeContext,
): { config: TransitTimeConfiguration; created: boolean } {
  const calculationStrategy = strategyOf(body);
  const at = c.now.toISOString();
  if (!current) {
    if (typeof body.version !== "number" || !Number.isInteger(body.version)) {
      throw invalid("VERSION_REQUIRED", "version is required.", "/version");
    }
    return {
      config: { id: c.newId(), version: 1, created: at, lastModified: at, calculationStrategy },
      created: true,
    };
  }
  requireCurrentVersion("transit time configuration", current, body.version);
  return {
    config: { ...current, version: current.version + 1, lastModified: at, calculationStrategy },
    created: false,
  };
}
