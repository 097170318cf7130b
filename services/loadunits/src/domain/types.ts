/** The load unit service's read models, shaped as the reference schemas (LoadUnit, Stack, ...). */
import type { Json, JsonObject } from "@fop/kit/json";

export type { Json, JsonObject };

import type {
  LoadUnitStatus,
  OperativeContainerTypeStatus,
  ScannableIdentifierSearchType,
} from "@fop/contracts/loadunits";
import type { RecordingRule } from "@fop/contracts/picking";
import type { Localized } from "./locale.ts";

export { LOAD_UNIT_STATUSES, type LoadUnitStatus } from "@fop/contracts/loadunits";

export interface RecordableAttribute {
  id: string;
  keyLocalized: Localized;
  key?: string;
  recordingRule: RecordingRule;
  group?: string | null;
  value?: string | null;
  originId?: string | null;
}

export interface LoadUnitLineItem {
  id: string;
  article: JsonObject;
  recordableAttributes?: RecordableAttribute[];
  [field: string]: Json | RecordableAttribute[] | undefined;
}

export interface LoadUnit {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  status: LoadUnitStatus;
  facilityRef: string;
  pickJobRefs: string[];
  nameLocalized: Localized;
  name?: string;
  descriptionLocalized?: Localized;
  description?: string;
  codes?: string[];
  customAttributes?: JsonObject | null;
  dimensions?: JsonObject;
  iconUrl?: string;
  loadUnitLineItems?: LoadUnitLineItem[];
  loadUnitTypeRef?: string;
  operativeContainerTypeRef?: string;
  operativeProcessRef?: string;
  stackRef?: string;
  storageLocationRef?: string;
  weightLimitInG?: number;
}

export interface Stack {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  facilityRefs: string[];
  processRefs: string[];
}

export type ContainerTypeKind = "OPERATIVE" | "LOAD_UNIT_TYPE";

/** An operative container type or a load unit type (the fields of both; each kind uses its own). */
export interface ContainerType {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  nameLocalized: Localized;
  name?: string;
  descriptionLocalized?: Localized;
  description?: string;
  dimensions?: JsonObject;
  iconUrl?: string;
  priority?: number;
  weightLimitInG?: number;
  // operative container types only
  allowedOperativeTypes?: string[];
  customAttributes?: JsonObject;
  scannableIdentifiers?: { identifiers: string[]; searchType?: ScannableIdentifierSearchType }[];
  status?: OperativeContainerTypeStatus;
}

/** What a change needs from outside the entity: the clock and new ids. */
export interface ChangeContext {
  now: Date;
  newId: () => string;
  defaultLocale: string;
}
