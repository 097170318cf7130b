/**
 * How a service reads a Connect JSON request (a direct caller's: every component of ours sends
 * binary): through the same JSON door as a REST body (../schemas/json-values.ts: UTF-8, nesting
 * depth, NUL and lone surrogates, numbers that cannot be kept, `__proto__`, keys written twice),
 * then as proto3 JSON of the request message. A refusal is INVALID_ARGUMENT with our ErrorDetail
 * naming the field, as REST's 400 does: a field of the message that does not take the value it was
 * given is named by its JSON name (`/carrierId`).
 *
 * Unknown fields of the message are ignored, as proto3 JSON readers do by default, so that a caller
 * built from a newer proto can still call; a body (a `Struct`) is read with its REST schema
 * (body.ts), which refuses or drops what REST does.
 */
import { type DescMessage, fromJson, type JsonValue, type Message, ScalarType } from "@bufbuild/protobuf";
import { AppError } from "../errors.ts";
import { parseJsonBody } from "../schemas/json-values.ts";

export function decodeJsonRequest(schema: DescMessage, bytes: Uint8Array): Message {
  const value = parseJsonBody(bytes) as JsonValue;
  try {
    return fromJson(schema, value, { ignoreUnknownFields: true });
  } catch {
    throw refusal(schema, value);
  }
}

/** The refusal of `value`, which is no `schema` message: naming the first field that does not read. */
function refusal(schema: DescMessage, value: JsonValue): AppError {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return new AppError("invalid", {
      code: "VALIDATION_FAILED",
      summary: "Invalid input.",
      description: `The request must be a JSON object (a ${schema.name}).`,
      field: "/",
    });
  }
  for (const [key, member] of Object.entries(value)) {
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) continue;
    try {
      fromJson(schema, { [key]: member } as JsonValue, { ignoreUnknownFields: true });
    } catch {
      return new AppError("invalid", {
        code: "VALIDATION_FAILED",
        summary: "Invalid input.",
        description: `/${field.jsonName}: ${expectation(field)}.`,
        field: `/${field.jsonName}`,
      });
    }
  }
  // Each field reads alone but not together (a oneof given twice).
  const first = Object.keys(value)[0] ?? "";
  return new AppError("invalid", {
    code: "VALIDATION_FAILED",
    summary: "Invalid input.",
    description: `The request is no ${schema.name}: its fields do not read together.`,
    field: `/${first}`,
  });
}

type Field = DescMessage["fields"][number];

/** What a field takes, in words. */
function expectation(field: Field): string {
  let one: string;
  if (field.message?.typeName === "google.protobuf.Struct") one = "JSON object";
  else if (field.message) one = `${field.message.name} object`;
  else if (field.enum) one = `${field.enum.name} value`;
  else {
    // The rest are numbers (64-bit ones also as strings).
    const scalar = "scalar" in field ? field.scalar : undefined;
    one =
      scalar === ScalarType.STRING
        ? "string"
        : scalar === ScalarType.BYTES
          ? "base64 string"
          : scalar === ScalarType.BOOL
            ? "boolean"
            : "number";
  }
  if (field.fieldKind === "list") return `must be a list of ${one}s`;
  if (field.fieldKind === "map") return `must be a map of ${one}s`;
  return `must be ${/^[aeiou]/i.test(one) ? "an" : "a"} ${one}`;
}
