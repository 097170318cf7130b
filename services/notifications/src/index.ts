// The benchmark (test/bench) seeds and its baseline reads the same configurations and notifications
// as the service: the pure functions, statements and search resource, not a copy of them.
export { insertConfigIfAbsent, insertNotification, loadConfigText, updateConfig } from "./db/rows.ts";
export { putConfig } from "./domain/config.ts";
export { clientNotification, type EventSubject } from "./domain/notification.ts";
export { notificationsService } from "./service.ts";
export { notificationSearch } from "./usecases/notifications.ts";
