import { randomInt } from "node:crypto";
import { uuidv7 } from "uuidv7";

/** A new entity or event id: UUIDv7, so ids sort in creation order. */
export const newId = (): string => uuidv7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `s` has the shape of a UUID (ids we issue); lets lookups skip the database for junk. */
export const isUuid = (s: string): boolean => UUID.test(s);

/** shortId: 6 characters from an alphabet without look-alikes (0/O, 1/I/L), e.g. "K7Q2XM". */
const SHORT_ID_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const newShortId = (): string =>
  Array.from({ length: 6 }, () => SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)]).join("");
