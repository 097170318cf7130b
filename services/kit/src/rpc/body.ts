/**
 * A write RPC's `Struct` body, read with the REST schema of the same write (from
 * @fop/contracts/rest), so a direct caller meets the rules a REST client meets: the JSON door's value
 * rules (nesting depth, no NUL, no lone surrogates, no `__proto__`, whole numbers exact), then the
 * schema with the gateway's own validator (closed objects refuse an unknown property, open ones
 * lose their undeclared properties, defaults are filled in, formats and limits hold). A refusal is
 * INVALID_ARGUMENT `VALIDATION_FAILED` in the REST 400's words, with its ErrorDetail naming the field.
 *
 * The gateway's calls carry bodies it has already validated: validating again costs one compiled
 * ajv run per write (see test/bench/README.md), and buys one rule set whoever calls.
 */
import type { JsonObject as StructJson } from "@bufbuild/protobuf";
import { AppError, invalid } from "../errors.ts";
import type { JsonObject } from "../json.ts";
import { type AjvError, describeValidation, fieldOf } from "../schemas/describe.ts";
import { checkJsonValue, JSON_LIMITS, pathDeeperThan } from "../schemas/json-values.ts";
import { bodyValidator } from "../schemas/validators.ts";

/** How deep `value` nests objects and arrays (the body itself is level 1); stops counting past `max`. */
function depthOf(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The body (an absent one: `{}`) checked against `schema`, as the use case takes it. */
export function readBody(schema: object, body: StructJson | undefined): JsonObject {
  const doc = (body ?? {}) as JsonObject;
  if (depthOf(doc, JSON_LIMITS.maxDepth) > JSON_LIMITS.maxDepth) {
    const at = pathDeeperThan(doc, JSON_LIMITS.maxDepth);
    throw invalid(
      "NESTING_TOO_DEEP",
      `Objects and arrays may be nested at most ${JSON_LIMITS.maxDepth} levels deep${at ? ` (${at} is deeper)` : ""}.`,
      at,
    );
  }
  checkJsonValue(doc);
  const validate = bodyValidator(schema);
  if (!validate(doc)) {
    const e = validate.errors?.[0] as AjvError | undefined;
    throw new AppError("invalid", {
      code: "VALIDATION_FAILED",
      summary: "Invalid input.",
      description: e ? describeValidation("body", e) : "The body is invalid.",
      field: e ? fieldOf(e) : undefined,
    });
  }
  return doc;
}
