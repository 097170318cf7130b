/**
 * The platform's vocabulary, once. Each area has its own module (`@fop/contracts/picking`, ...);
 * this index re-exports them all.
 */
export * from "./audit.ts";
export * from "./carriers.ts";
export * from "./common.ts";
export * from "./event-kinds.ts";
export * from "./facilities.ts";
export * from "./loadunits.ts";
export * from "./locales.ts";
export * from "./notifications.ts";
export * from "./permissions.ts";
export * from "./picking.ts";
export * from "./returns.ts";
