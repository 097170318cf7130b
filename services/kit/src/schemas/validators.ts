/**
 * The JSON schema validators of the REST contract: the gateway validates REST bodies and the GraphQL
 * arguments that mirror them with these, and a service reads a direct caller's body with the same
 * ones (rpc/body.ts), so both doors apply one set of rules.
 */
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { compileStripper } from "./strip.ts";

/**
 * Body: no type coercion (a string is not a number), one pass for bodies that are one of several
 * variants (`discriminator`), undeclared properties of open objects dropped after validation
 * (strip.ts); query/params: coerce, as HTTP sends text.
 */
export function validators() {
  const opts = { useDefaults: true, removeAdditional: false as const, allErrors: false, strict: false };
  // verbose: a discriminator error can then name the allowed values (errors.ts).
  const body = new Ajv({ ...opts, coerceTypes: false, discriminator: true, verbose: true });
  const text = new Ajv({ ...opts, coerceTypes: "array" as const });
  for (const ajv of [body, text]) addFormats.default(ajv, ["date-time", "email", "uri"]);
  return {
    text,
    body: (schema: object) => {
      const validate = body.compile(schema);
      const strip = compileStripper(schema, body);
      if (!strip) return validate;
      const checked = (data: unknown) => {
        const ok = validate(data);
        checked.errors = validate.errors;
        if (ok) strip(data);
        return ok;
      };
      checked.errors = null as ValidateFunction["errors"];
      return checked;
    },
  };
}

let shared: ReturnType<typeof validators> | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** A body validator for `schema`, compiled once (GraphQL arguments validated as their REST bodies). */
export function bodyValidator(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    shared ??= validators();
    v = shared.body(schema) as ValidateFunction;
    compiled.set(schema, v);
  }
  return v;
}
