/** Mutation inputs validated as the REST bodies they mirror: the same limits and error texts. */
import type { JsonObject } from "@bufbuild/protobuf";
import { invalid } from "@fop/kit/errors";
import { type AjvError, describeValidation } from "../plugins/errors.ts";
import { bodyValidator } from "../validation.ts";

/** `input` checked against the REST body schema (errors name `input/...`); a copy, never the argument. */
export function validated(schema: object, input: unknown, name = "input"): JsonObject {
  const body = structuredClone(input ?? {}) as JsonObject;
  const validate = bodyValidator(schema);
  if (!validate(body)) {
    const e = validate.errors?.[0] as AjvError | undefined;
    throw invalid(
      "VALIDATION_FAILED",
      e ? describeValidation(name, e) : `${name} is invalid.`,
      `${name}${e?.instancePath ?? ""}`,
    );
  }
  return body;
}
