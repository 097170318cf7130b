export { returnsService } from "./service.ts";
