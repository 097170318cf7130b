import type { Orm } from "@fop/kit/db/orm";

/** What the catalog's use cases need; main.ts and tests build it. */
export interface CatalogDeps {
  orm: Orm;
  /** Locale whose name categories sort by (then the alphabetically first locale). */
  defaultLocale: string;
  now: () => Date;
  newId: () => string;
}
