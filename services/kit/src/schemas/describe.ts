/**
 * A validation failure in the REST API's words, the same at both doors: the gateway's 400 for a
 * REST body and a service's INVALID_ARGUMENT for a direct caller's body (rpc/body.ts).
 */

export interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
  /** With Ajv's `verbose`: the schema holding the failed keyword. */
  parentSchema?: { oneOf?: { properties?: Record<string, { enum?: unknown[]; const?: unknown }> }[] };
}

/** The values a discriminated union's tag may take: each variant's `enum` (StringEnum) or `const` (Type.Literal). */
const tagValues = (e: AjvError, tag: string): string[] =>
  (e.parentSchema?.oneOf ?? []).flatMap((v) => {
    const t = v.properties?.[tag];
    return (t?.enum ?? (t && t.const !== undefined ? [t.const] : [])).map(String);
  });

/** Enums longer than this are named by their title in an error, not listed. */
const LONG_ENUM = 30;

/** "<context><path> must ...": what is wrong, where. */
export function describeValidation(context: string, e: AjvError): string {
  const where = `${context}${e.instancePath}`;
  if (e.keyword === "additionalProperties") {
    return `${where} must not have the property ${JSON.stringify(e.params.additionalProperty)}.`;
  }
  if (e.keyword === "required")
    return `${where} is missing the required property ${JSON.stringify(e.params.missingProperty)}.`;
  if (e.keyword === "enum") {
    const values = (e.params.allowedValues as unknown[]).map(String);
    // A long named list (CurrencyCode's ~180 ISO 4217 codes) is named, not spelled out.
    const title = (e.parentSchema as { title?: unknown } | undefined)?.title;
    if (values.length > LONG_ENUM && typeof title === "string")
      return `${where} must be a ${title} (one of the ${values.length} values the OpenAPI document lists).`;
    return `${where} must be one of ${values.join(", ")}.`;
  }
  if (e.keyword === "discriminator") {
    const tag = String(e.params.tag);
    const values = tagValues(e, tag);
    return `${where}/${tag} must be ${values.length ? `one of ${values.join(", ")}` : "given"}.`;
  }
  return `${where} ${e.message ?? "is invalid"}.`;
}

/**
 * The JSON pointer of what a failure is about: the property that must not be there or is missing,
 * else the failing value's path ("" for the body itself).
 */
export function fieldOf(e: AjvError): string {
  if (e.keyword === "additionalProperties") return `${e.instancePath}/${String(e.params.additionalProperty)}`;
  if (e.keyword === "required") return `${e.instancePath}/${String(e.params.missingProperty)}`;
  if (e.keyword === "discriminator") return `${e.instancePath}/${String(e.params.tag)}`;
  return e.instancePath;
}
