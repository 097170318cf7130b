/** The services the platform runs, in start order, with where their main module lives. */
import path from "node:path";
import { auditService } from "@fop/audit";
import { carriersService } from "@fop/carriers";
import { catalogService } from "@fop/catalog";
import type { ServiceModule } from "@fop/kit/service";
import { loadUnitsService } from "@fop/loadunits";
import { notificationsService } from "@fop/notifications";
import { pickingService } from "@fop/picking";
import { returnsService } from "@fop/returns";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

export interface ServiceEntry {
  module: ServiceModule<unknown>;
  main: string;
}

export const SERVICES: ServiceEntry[] = [
  {
    module: catalogService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/catalog/src/main.ts"),
  },
  {
    module: auditService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/audit/src/main.ts"),
  },
  {
    module: pickingService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/picking/src/main.ts"),
  },
  {
    module: loadUnitsService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/loadunits/src/main.ts"),
  },
  {
    module: carriersService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/carriers/src/main.ts"),
  },
  {
    module: returnsService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/returns/src/main.ts"),
  },
  {
    module: notificationsService as ServiceModule<unknown>,
    main: path.join(REPO_ROOT, "services/notifications/src/main.ts"),
  },
];

export const GATEWAY_MAIN = path.join(REPO_ROOT, "gateway/src/main.ts");
