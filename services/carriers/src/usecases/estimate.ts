/** Delivery date estimates from a carrier's configuration and the tenant's transit time strategy. */
import type { RequestContext } from "@fop/kit/context";
import { AppError, invalid } from "@fop/kit/errors";
import { loadTransitTime } from "../db/rows.ts";
import {
  checkTimeZone,
  estimateDeliveryDates,
  type MappingForEstimate,
  type NonDeliveryDaysPerCountryAndProvince,
  type Place,
} from "../domain/delivery-date.ts";
import { getConfiguration } from "./configurations.ts";
import type { CarriersDeps } from "./deps.ts";

export interface EstimateRequest {
  carrierId: string;
  handoverAt: string;
  timeZone: string;
  source: Place;
  destination: Place;
}

function checkPlace(p: Place | undefined, field: string): Place {
  if (!p || !/^[A-Za-z]{2}$/.test(p.countryCode)) {
    throw invalid("INVALID_REGION", `${field} needs a two-letter countryCode.`, field);
  }
  return {
    countryCode: p.countryCode,
    ...(p.postalCode ? { postalCode: p.postalCode } : {}),
    ...(p.province ? { province: p.province } : {}),
  };
}

export async function estimate(deps: CarriersDeps, ctx: RequestContext, req: EstimateRequest) {
  const handoverAt = new Date(req.handoverAt);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(req.handoverAt) || Number.isNaN(handoverAt.getTime())) {
    throw invalid("INVALID_DATE_TIME", "handoverAt must be an RFC 3339 date-time.", "handoverAt");
  }
  const timeZone = req.timeZone || "UTC";
  if (!checkTimeZone(timeZone)) {
    throw invalid("INVALID_TIME_ZONE", `${JSON.stringify(timeZone)} is not an IANA time zone.`, "timeZone");
  }
  const source = checkPlace(req.source, "source");
  const destination = checkPlace(req.destination, "destination");
  const [config, transit] = await Promise.all([
    getConfiguration(deps, ctx, req.carrierId),
    loadTransitTime(deps.db, ctx.tenant),
  ]);
  const strategy = transit?.calculationStrategy ?? "EARLIEST";
  const result = estimateDeliveryDates({
    handoverAt,
    timeZone,
    source,
    destination,
    mappings: config.countryServiceMappings as MappingForEstimate[],
    nonDeliveryDays:
      config.nonDeliveryDaysPerCountryAndProvince as unknown as NonDeliveryDaysPerCountryAndProvince[],
    strategy,
  });
  if (result.kind === "no-mapping") {
    throw new AppError("precondition", {
      code: "NO_MAPPING_FOR_ROUTE",
      description: "No country service mapping with a transit time serves this source and destination.",
    });
  }
  if (result.kind === "no-delivery-day") {
    throw new AppError("precondition", {
      code: "NO_DELIVERY_DAY",
      description: "The non-delivery days leave no delivery day within two years.",
    });
  }
  return { ...result, calculationStrategy: strategy };
}
