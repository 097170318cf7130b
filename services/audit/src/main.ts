import { runMain } from "@fop/kit/service";
import { auditService } from "./service.ts";

await runMain(auditService);
