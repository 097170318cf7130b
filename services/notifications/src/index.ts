export { notificationsService } from "./service.ts";
