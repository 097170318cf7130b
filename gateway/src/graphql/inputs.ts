/** Mutation inputs validated as the REST bodies they mirror: the same limits and error texts. */
import type { JsonObject } from "@bufbuild/protobuf";
import { invalid } from "@fop/kit/errors";
import { type AjvError, describeValidation } from "@fop/kit/schemas/describe";
import { bodyValidator } from "@fop/kit/schemas/validators";

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
