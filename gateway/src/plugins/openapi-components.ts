/**
 * Named components for the OpenAPI document. The route schemas stay as they are (validation and
 * response serialization use them untouched); the document @fastify/swagger builds from them has
 * every schema inlined where it is used. This moves each schema that carries a `title` into
 * `components.schemas` under that title and puts a `$ref` where it was, in the bodies and in the
 * components, nested occurrences too, so a schema many operations use is written once (measured on
 * the 122 operations: 1.87 MB of JSON inlined, 0.52 MB with components).
 *
 * Titles name the schema, so one title names one schema: two occurrences of a title that differ
 * in anything but their annotations (description, deprecated, examples, ...) are a clash, an error
 * naming both places (the document is not generated; the OpenAPI tests generate it), and so is a
 * title that is not a component name. Annotations all occurrences share go into the component, the
 * others stay beside their `$ref` (OpenAPI 3.1 allows that). Schemas @fastify/swagger hoisted for
 * their `$id` (`def-0`, ...) are renamed after their title, and each discriminator gets the
 * `mapping` from its property's values to the variants' components.
 */

type Schema = Record<string, unknown>;

/** Keywords that describe a schema where it is used without changing what it accepts. */
const ANNOTATIONS = ["description", "deprecated", "examples", "example", "default", "readOnly", "writeOnly"];

/** Keywords whose value is a schema / an array of schemas / a map of schemas (JSON Schema 2020-12). */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"];
const MANY = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "dependentSchemas"];

const PREFIX = "#/components/schemas/";
/** What OpenAPI allows as a component's name. */
const NAME = /^[A-Za-z0-9._-]+$/;
const METHODS = ["get", "put", "post", "patch", "delete", "options", "head", "trace"];

interface Occurrence {
  /** The `$ref` object that replaced the schema (its annotations beside). */
  ref: Schema;
  /** The schema without its annotations, its own titled parts already references. */
  core: Schema;
  at: string;
}

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The document with its titled schemas as components (a new object; `doc` is not changed).
 * @throws when two different schemas carry one title, naming where each occurs.
 */
export function withNamedComponents<T extends object>(doc: T): T {
  const out = structuredClone(doc) as Schema;
  const components: Schema = isObject(out.components) ? out.components : {};
  const schemas = (isObject(components.schemas) ? components.schemas : {}) as Record<string, Schema>;
  out.components = components;
  const groups = new Map<string, Occurrence[]>();

  // `def-N` -> its title, in every `$ref` of the document (before anything is walked).
  const renamed = new Map<string, string>();
  for (const [key, schema] of Object.entries(schemas))
    if (/^def-\d+$/.test(key) && typeof schema.title === "string")
      renamed.set(`${PREFIX}${key}`, schema.title);
  if (renamed.size) renameRefs(out, renamed);

  /** `schema` with its titled parts replaced by references (recorded in `groups`); itself too if titled. */
  const visit = (schema: unknown, at: string): unknown => {
    if (!isObject(schema)) return schema;
    const node: Schema = { ...schema };
    for (const k of ONE) if (isObject(node[k])) node[k] = visit(node[k], `${at}/${k}`);
    for (const k of MANY)
      if (Array.isArray(node[k])) node[k] = (node[k] as unknown[]).map((s, i) => visit(s, `${at}/${k}/${i}`));
    for (const k of MAP)
      if (isObject(node[k]))
        node[k] = Object.fromEntries(
          Object.entries(node[k]).map(([name, s]) => [name, visit(s, `${at}/${k}/${name}`)]),
        );
    const title = node.title;
    if (typeof title !== "string" || typeof node.$ref === "string") return node;
    const ref: Schema = { $ref: `${PREFIX}${title}` };
    const core: Schema = {};
    for (const [k, v] of Object.entries(node)) (ANNOTATIONS.includes(k) ? ref : core)[k] = v;
    const group = groups.get(title) ?? [];
    group.push({ ref, core, at });
    groups.set(title, group);
    return ref;
  };

  for (const [key, schema] of Object.entries(schemas)) {
    delete schemas[key];
    const visited = visit(schema, `component ${key} `) as Schema;
    const name = renamed.get(`${PREFIX}${key}`) ?? key;
    // A titled component is its group's occurrence; the group writes it below.
    if (visited.$ref !== `${PREFIX}${name}`) schemas[name] = visited;
  }
  // The bodies: each media type's schema, with the request body or response that holds it.
  const media: { holder: Schema; content: Schema; at: string }[] = [];
  for (const [path, item] of Object.entries((out.paths ?? {}) as Record<string, Schema>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const holders: [Schema, string][] = isObject(op.requestBody) ? [[op.requestBody, "request body"]] : [];
      for (const [status, res] of Object.entries((op.responses ?? {}) as Record<string, Schema>))
        holders.push([res, `response ${status}`]);
      for (const [holder, what] of holders)
        for (const [type, content] of Object.entries((holder.content ?? {}) as Record<string, Schema>))
          media.push({ holder, content, at: `${method.toUpperCase()} ${path} ${what} (${type}) ` });
    }
  }
  for (const m of media) m.content.schema = visit(m.content.schema, m.at);

  const clashes: string[] = [];
  for (const [title, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const first = group[0] as Occurrence;
    if (!NAME.test(title)) {
      clashes.push(`"${title}" at ${first.at} is not a component name (letters, digits, . - _)`);
      continue;
    }
    const text = JSON.stringify(first.core);
    const other = group.find((o) => JSON.stringify(o.core) !== text);
    if (other) {
      clashes.push(`"${title}" at ${first.at} and, different, at ${other.at}`);
      continue;
    }
    if (schemas[title]) {
      clashes.push(`"${title}" at ${first.at} is also an untitled component's name`);
      continue;
    }
    // Annotations every occurrence has alike belong to the component; the others stay at the $ref.
    const component: Schema = { ...first.core };
    for (const k of ANNOTATIONS) {
      const value = JSON.stringify(first.ref[k]);
      if (value !== undefined && group.every((o) => JSON.stringify(o.ref[k]) === value)) {
        component[k] = first.ref[k];
        for (const o of group) delete o.ref[k];
      }
    }
    schemas[title] = component;
  }
  if (clashes.length)
    throw new Error(
      `OpenAPI components: a title must name one schema and be a component name (retitle ours):\n  ${clashes.join("\n  ")}`,
    );

  // A body's description is its response's (@fastify/swagger copies it there): not said twice.
  for (const { holder, content } of media) {
    const schema = content.schema;
    if (isObject(schema) && typeof schema.$ref === "string" && schema.description === holder.description)
      delete schema.description;
  }
  for (const schema of [...Object.values(schemas), ...media.map((m) => m.content.schema)])
    withMappings(schema, schemas);
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return out as T;
}

/**
 * Each `discriminator` of `schema` (nested ones too) given its `mapping`: the value of the property
 * it names -> the variant's component. Without it a reader (a client generator) takes the
 * components' names for the values (`type: "ManagedFacilityForReplacement"`, not `MANAGED_FACILITY`).
 * Left without one where a variant is not a component or does not fix the property's value.
 */
function withMappings(schema: unknown, schemas: Record<string, Schema>): void {
  if (!isObject(schema)) return;
  for (const k of ONE) withMappings(schema[k], schemas);
  for (const k of MANY) if (Array.isArray(schema[k])) for (const s of schema[k]) withMappings(s, schemas);
  for (const k of MAP)
    if (isObject(schema[k])) for (const s of Object.values(schema[k])) withMappings(s, schemas);
  const discriminator = schema.discriminator;
  const variants = schema.oneOf ?? schema.anyOf;
  if (!isObject(discriminator) || discriminator.mapping || !Array.isArray(variants)) return;
  const deref = (s: unknown): Schema | undefined =>
    isObject(s) && typeof s.$ref === "string"
      ? deref(schemas[s.$ref.slice(PREFIX.length)])
      : isObject(s)
        ? s
        : undefined;
  const mapping: Record<string, string> = {};
  for (const variant of variants) {
    const ref = isObject(variant) ? variant.$ref : undefined;
    const properties = deref(variant)?.properties;
    const values = isObject(properties)
      ? deref(properties[String(discriminator.propertyName)])?.enum
      : undefined;
    if (typeof ref !== "string" || !Array.isArray(values)) return;
    for (const value of values) {
      if (typeof value !== "string" || value in mapping) return;
      mapping[value] = ref;
    }
  }
  discriminator.mapping = mapping;
}

/** Every `$ref` of `node` that `names` renames, renamed. */
function renameRefs(node: unknown, names: Map<string, string>): void {
  if (Array.isArray(node)) for (const n of node) renameRefs(n, names);
  if (!isObject(node)) return;
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string" && names.has(v)) node.$ref = `${PREFIX}${names.get(v)}`;
    else renameRefs(v, names);
  }
}
