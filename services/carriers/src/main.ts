import { runMain } from "@fop/kit/service";
import { carriersService } from "./service.ts";

await runMain(carriersService);
