/**
 * Validates JSON against the real platform's public schemas in ../shared/reference/openapi-subset.yaml
 * (next to the clone, never copied into the project). OpenAPI 3.0 specifics are translated for Ajv:
 * `nullable`, `#/components/schemas/X` refs, int64/double formats.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";

export const REFERENCE_FILE = path.resolve(
  import.meta.dirname,
  "../../../shared/reference/openapi-subset.yaml",
);

/** Why reference validation cannot run ("" when it can). */
export const referenceMissing = existsSync(REFERENCE_FILE)
  ? ""
  : `reference API description not found at ${REFERENCE_FILE} (it lives in ../shared beside the clone); reference validation is skipped`;

type Json = Record<string, unknown>;

function convert(node: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((n) => convert(n, schemas));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "$ref" && typeof v === "string") out.$ref = v.replace("#/components/schemas/", "");
    else if (k === "allOf" && Array.isArray(v)) out.allOf = v.map((m) => open(convert(m, schemas) as Json));
    else if (
      k === "discriminator" ||
      k === "xml" ||
      k === "example" ||
      k === "examples" ||
      k === "deprecated"
    )
      continue;
    else out[k] = convert(v, schemas);
  }
  if (Array.isArray(out.allOf) && out.additionalProperties === false) {
    delete out.additionalProperties;
    out.propertyNames = { enum: [...declared(node as Json, schemas)] };
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

/**
 * `additionalProperties: false` beside `allOf` (Parcel = allOf[VersionedResource,
 * BaseOperationalContainer, {id, status, ...}], closed) sees only the properties declared beside
 * it, none, so it would reject every parcel. What it means is "no property but the members'": it
 * becomes `propertyNames` listing the properties the schema and its members declare.
 */
function declared(node: Json, schemas: Record<string, Json>, names = new Set<string>()): Set<string> {
  const ref = node.$ref;
  if (typeof ref === "string") {
    const target = schemas[ref.replace("#/components/schemas/", "")];
    return target ? declared(target, schemas, names) : names;
  }
  for (const name of Object.keys((node.properties as Json | undefined) ?? {})) names.add(name);
  for (const member of (node.allOf as Json[] | undefined) ?? []) declared(member, schemas, names);
  return names;
}

/**
 * A member of an `allOf` is a part of the object, not all of it: its own `additionalProperties:
 * false` would reject the other members' properties (PickJob = allOf[PickJobForCreation (closed),
 * VersionedResource, {id, pickLineItems: PickLineItem[], ...}] would reject every real pick job, the
 * platform's own included, because the read members extend nested objects too: a PickLineItem has
 * `id`, `picked`, `status` that the closed PickLineItemForCreation forbids). So inside allOf, a
 * member is checked in its open variant (`<Name>~open`): the same schema with every
 * `additionalProperties: false` dropped, nested ones included. Types, required fields, enums and
 * limits are all still checked.
 */
function open(member: Json): Json {
  return deepOpen(member) as Json;
}

function deepOpen(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(deepOpen);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "$ref" && typeof v === "string") out.$ref = v.endsWith("~open") ? v : `${v}~open`;
    else if ((k === "additionalProperties" && v === false) || k === "propertyNames") continue;
    else out[k] = deepOpen(v);
  }
  return out;
}

let ajv: Ajv | undefined;

interface ReferenceDocument {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
}
let referenceDoc: ReferenceDocument | undefined;

/** The reference document, parsed once. */
export function referenceDocument(): ReferenceDocument {
  referenceDoc ??= parse(readFileSync(REFERENCE_FILE, "utf8")) as ReferenceDocument;
  return referenceDoc;
}

const HTTP_METHODS = ["get", "put", "post", "patch", "delete"] as const;

/** Every operation of the reference: method (upper case) and path template, e.g. ["GET", "/api/facilities/{facilityId}"]. */
export function referenceOperations(): [string, string][] {
  return Object.entries(referenceDocument().paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m) => [m.toUpperCase(), path] as [string, string]),
  );
}

const responseValidators = new Map<string, ValidateFunction | null>();

/**
 * Validates a response body against the JSON schema the reference declares for that operation and
 * status; an error status the operation does not list is held to ApiError (the platform's one error
 * shape). `undefined` when the reference declares no JSON body for it (nothing to check), else
 * Ajv's error list ([] when valid).
 */
export function referenceResponseErrors(
  method: string,
  path: string,
  status: number,
  body: unknown,
): unknown[] | undefined {
  const key = `${method} ${path} ${status}`;
  if (!responseValidators.has(key)) {
    const responses = (referenceDocument().paths[path]?.[method.toLowerCase()]?.responses ?? {}) as Record<
      string,
      Json
    >;
    const declared = (responses[String(status)]?.content as Json | undefined)?.["application/json"] as
      | Json
      | undefined;
    let schema = declared?.schema as Json | undefined;
    if (!schema && status >= 400 && !responses[String(status)])
      schema = { $ref: "#/components/schemas/ApiError" };
    responseValidators.set(
      key,
      schema ? load().compile(convert(schema, referenceDocument().components.schemas) as Json) : null,
    );
  }
  const v = responseValidators.get(key);
  if (!v) return undefined;
  return v(body) ? [] : (v.errors ?? []);
}

function load(): Ajv {
  if (ajv) return ajv;
  const doc = referenceDocument();
  ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  for (const f of ["int64", "int32", "double", "float", "byte", "binary"]) ajv.addFormat(f, true);
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    const converted = convert(schema, doc.components.schemas) as Json;
    ajv.addSchema({ ...converted, $id: name });
    ajv.addSchema({ ...open(converted), $id: `${name}~open` });
  }
  return ajv;
}

/** The reference's validator for a component schema, e.g. "Category". */
export function referenceSchema(name: string): ValidateFunction {
  const v = load().getSchema(name);
  if (!v) throw new Error(`no schema ${name} in the reference`);
  return v;
}

/** Validates `value` against the reference schema `name`; returns Ajv's error list ([] when valid). */
export function referenceErrors(name: string, value: unknown): unknown[] {
  const v = referenceSchema(name);
  return v(value) ? [] : (v.errors ?? []);
}
