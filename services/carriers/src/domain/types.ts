/**
 * The carriers service's read models, shaped as the reference schemas (Carrier, StrippedCarrier,
 * CarrierConfiguration, CarrierCountryServiceMapping, TransitTimeConfiguration).
 */
import type {
  CalculationStrategy,
  CarrierDeliveryType,
  CarrierLifecycle,
  CarrierStatus,
} from "@fop/contracts/carriers";

import type { Json, JsonObject } from "@fop/kit/json";

export type { Json, JsonObject };

/** A carrier as clients read it: `credentials` only ever as `{key}` (their type), never a secret. */
export interface Carrier {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  key: string;
  name: string;
  status: CarrierStatus;
  deliveryType: CarrierDeliveryType;
  lifecycle: CarrierLifecycle;
  defaultParcelHeightInCm: number;
  defaultParcelLengthInCm: number;
  defaultParcelWidthInCm: number;
  defaultParcelWeightInGram: number;
  credentials?: { key: string };
  logoUrl?: string;
  productValueNeeded?: boolean;
  parcelLabelClassifications?: JsonObject[];
}

export interface RegionInformation {
  countryCode: string;
  postalCodes?: string[];
}

export interface CountryServiceMapping {
  id: string;
  source: RegionInformation;
  destinations: RegionInformation[];
  transitTime?: { minTransitDays: number; maxTransitDays: number };
  countAsTransitDayBefore?: string;
  [field: string]: Json | RegionInformation | RegionInformation[] | undefined;
}

export interface CarrierConfiguration {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  carrierRef: string;
  returnLabel: boolean;
  mustBeWeighed?: boolean;
  countryServiceMappings: CountryServiceMapping[];
  nonDeliveryDaysPerCountryAndProvince: JsonObject[];
  [field: string]: Json | CountryServiceMapping[] | undefined;
}

export interface TransitTimeConfiguration {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  calculationStrategy: CalculationStrategy;
}

/** What a change needs from outside: the clock and new ids. */
export interface ChangeContext {
  now: Date;
  newId: () => string;
}
