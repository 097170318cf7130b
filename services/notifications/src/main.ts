import { runMain } from "@fop/kit/service";
import { notificationsService } from "./service.ts";

await runMain(notificationsService);
