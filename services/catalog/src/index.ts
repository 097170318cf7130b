export { catalogService } from "./service.ts";
