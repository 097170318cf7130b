/**
 * Second-pass body validation for bodies that are a union discriminated by a field (pick job
 * actions by `name`, PATCH actions by `action`): the route schema checks the discriminator, then the
 * body is checked against the schema of its variant, so a 400 names the variant's offending field
 * instead of Ajv's "must match a schema in anyOf". Same Ajv settings as route bodies (no coercion).
 */
import { AppError } from "@fop/kit/errors";
import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { type AjvError, describeValidation } from "./errors.ts";

const ajv = new Ajv({ useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
addFormats.default(ajv, ["date-time", "email", "uri"]);
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Throws a 400 naming the first problem of `value` (at `context`, e.g. "body/actions/0"). */
export function checkBody(schema: TSchema, value: unknown, context: string): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return;
  const first = validate.errors?.[0] as AjvError | undefined;
  throw new AppError("invalid", {
    code: "VALIDATION_FAILED",
    summary: "Invalid input.",
    description: first ? describeValidation(context, first) : `${context} is invalid.`,
  });
}
