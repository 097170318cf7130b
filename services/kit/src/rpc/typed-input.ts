/**
 * The typed fields of a request meet the JSON door's rules for values (../schemas/json-values.ts),
 * whichever encoding brought them: a string with NUL or a lone surrogate, a 64-bit integer past
 * ±(2^53 - 1) (our documents keep numbers as JSON numbers: it would change on the way) or a number
 * that is not finite is refused with INVALID_ARGUMENT naming the field (`/version`,
 * `/source/postalCode`). Bodies (`google.protobuf.Struct`) are read by body.ts with their REST
 * schema. A binary caller's string is decoded from UTF-8 before this sees it, so a lone surrogate
 * arrives only in JSON (where the JSON door refuses it first); NUL arrives either way.
 */
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { checkNumber, checkString, pointer } from "../schemas/json-values.ts";

/** Messages that carry JSON documents, read with their schema elsewhere (body.ts). */
const DOCUMENTS = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** Throws for the first typed value of `message` (a `schema`) that no part of the system may receive. */
export function checkTypedInput(schema: DescMessage, message: Message, path: (string | number)[] = []): void {
  const fields = message as unknown as Record<string, unknown>;
  for (const field of schema.fields) {
    let value: unknown;
    if (field.oneof) {
      const chosen = fields[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
      if (chosen?.case !== field.localName) continue;
      value = chosen.value;
    } else value = fields[field.localName];
    if (value === undefined) continue;
    // Paths are built only for a refusal or a nested message: the common request costs no allocation.
    if (field.fieldKind === "list") {
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) checkValue(field, items[i], path, field.jsonName, i);
    } else if (field.fieldKind === "map") {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        checkString(key, () => pointer([...path, field.jsonName, key]));
        checkValue(field, item, path, field.jsonName, key);
      }
    } else checkValue(field, value, path, field.jsonName);
  }
}

function checkValue(
  field: DescField,
  value: unknown,
  path: (string | number)[],
  name: string,
  index?: string | number,
): void {
  const at = () => pointer(index === undefined ? [...path, name] : [...path, name, index]);
  if (typeof value === "string") {
    checkString(value, at);
  } else if (typeof value === "bigint" || typeof value === "number") {
    checkNumber(value, at);
  } else if (value !== null && typeof value === "object" && !(value instanceof Uint8Array)) {
    const type = field.message;
    if (type && !DOCUMENTS.has(type.typeName))
      checkTypedInput(type, value as Message, index === undefined ? [...path, name] : [...path, name, index]);
  }
}

/** A server interceptor applying {@link checkTypedInput} to every unary request. */
export function typedInputInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) checkTypedInput(req.method.input, req.message as Message);
    return next(req);
  };
}
