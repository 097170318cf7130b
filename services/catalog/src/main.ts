import { runMain } from "@fop/kit/service";
import { catalogService } from "./service.ts";

await runMain(catalogService);
