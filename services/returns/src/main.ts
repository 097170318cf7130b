import { runMain } from "@fop/kit/service";
import { returnsService } from "./service.ts";

await runMain(returnsService);
