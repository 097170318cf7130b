import { uuidv7 } from "uuidv7";

/** A new entity or event id: UUIDv7, so ids sort in creation order. */
export const newId = (): string => uuidv7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `s` has the shape of a UUID (ids we issue); lets lookups skip the database for junk. */
export const isUuid = (s: string): boolean => UUID.test(s);
