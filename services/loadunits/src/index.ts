export { loadUnitsService } from "./service.ts";
