import { runMain } from "@fop/kit/service";
import { pickingService } from "./service.ts";

await runMain(pickingService);
