import { invalid } from "../errors.ts";

/** What a search cursor holds: the sort it belongs to, the row's sort value and id. */
export interface CursorData {
  /** Sort key: field name, plus ":" + map key for map-valued sorts. */
  sort: string;
  dir: "ASC" | "DESC";
  value: unknown;
  id: string;
}

/** Opaque cursor: base64url of a small JSON array. Clients must not build or parse them. */
export function encodeCursor(c: CursorData): string {
  return Buffer.from(JSON.stringify([c.sort, c.dir, c.value, c.id]), "utf8").toString("base64url");
}

/** Decodes a cursor made by {@link encodeCursor}; anything else is a 400 naming `field`. */
export function decodeCursor(raw: string, field: string): CursorData {
  const bad = () => invalid("INVALID_CURSOR", "The cursor is not one this API issued.", field);
  if (raw.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    typeof parsed[0] !== "string" ||
    (parsed[1] !== "ASC" && parsed[1] !== "DESC") ||
    typeof parsed[3] !== "string"
  ) {
    throw bad();
  }
  return { sort: parsed[0], dir: parsed[1], value: parsed[2], id: parsed[3] };
}
