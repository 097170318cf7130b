/**
 * GraphQL types from the REST API's JSON schemas (TypeBox), so that both interfaces describe one
 * resource the same way and a field added to a REST schema appears in GraphQL too.
 *
 * Objects with properties become object types (input types for inputs), named by their `title`
 * or, untitled, by where they occur (parent + field); a schema met again (the same object, or the
 * same structure) reuses its type. A union of string literals or an `enum` becomes a GraphQL enum
 * when every value is a valid enum name, else String. `X | null` is a nullable X. What GraphQL
 * cannot type (maps, free-form objects, unions of objects) is the `JSON` scalar. Required and not
 * nullable means `!`. A property that is not a valid GraphQL name is left out.
 */
type Schema = Record<string, unknown>;

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const RESERVED_ENUM_VALUES = new Set(["true", "false", "null"]);

export const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/** SDL description block (block string; no triple quotes inside). */
export function describe(text: unknown, indent = ""): string {
  if (typeof text !== "string" || !text.trim()) return "";
  const body = text.replace(/"""/g, '\\"""').trim();
  return `${indent}"""\n${body
    .split("\n")
    .map((l) => `${indent}${l}`)
    .join("\n")}\n${indent}"""\n`;
}

interface Definition {
  name: string;
  text: string;
}

export class TypeRegistry {
  private readonly definitions = new Map<string, Definition>();
  /** Type name by schema object and by structure, per kind (output object, input object, enum). */
  private readonly byIdentity = new Map<string, WeakMap<object, string>>();
  private readonly byStructure = new Map<string, string>();
  private readonly refs = new Map<string, Schema>();
  private readonly extra = new Map<string, string[]>();
  private readonly substitutes = new Map<object, Schema>();

  /** Names by structure (TypeBox's Optional() copies a schema, so identity would miss). */
  private readonly known = new Map<string, string>();

  /**
   * @param known names for schemas that carry no title (the shared filter operator sets, the sort
   *   direction); they win over names derived from where a schema occurs.
   */
  constructor(known: Map<object, string> = new Map()) {
    for (const [schema, name] of known) this.known.set(JSON.stringify(schema), name);
  }

  /** Adds a hand-written definition (root fields, connections, ...). */
  define(name: string, text: string): void {
    if (this.definitions.has(name)) throw new Error(`GraphQL type ${name} is defined twice`);
    this.definitions.set(name, { name, text });
  }

  /**
   * Types `placeholder` (an open object a REST schema keeps loose, e.g. a job's embedded item
   * returns) as `schema` wherever it occurs.
   */
  substitute(placeholder: unknown, schema: unknown): void {
    this.substitutes.set(placeholder as object, schema as Schema);
  }

  /** Adds fields to a type (relationships of a type derived from a REST schema). */
  extend(name: string, lines: string[]): void {
    this.extra.set(name, [...(this.extra.get(name) ?? []), ...lines]);
  }

  has(name: string): boolean {
    return this.definitions.has(name);
  }

  /** The type reference of an output field (e.g. `[PickLineItem!]!`). */
  output(schema: unknown, hint: string, required = true): string {
    return this.ref(schema as Schema, hint, required, "output");
  }

  /** The type reference of an argument or input field. */
  input(schema: unknown, hint: string, required = true): string {
    return this.ref(schema as Schema, hint, required, "input");
  }

  /** A named output object type for `schema` (e.g. the REST `Category`). */
  outputType(schema: unknown, name?: string): string {
    if (name) this.known.set(JSON.stringify(schema), name);
    return this.objectType(schema as Schema, name ?? String((schema as Schema).title), "output");
  }

  /** Every definition, sorted by name (a stable SDL file). */
  sdl(): string {
    return [...this.definitions.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((d) => {
        const extra = this.extra.get(d.name);
        return extra ? d.text.replace(/\n}$/, `\n${extra.map((l) => `  ${l}`).join("\n")}\n}`) : d.text;
      })
      .join("\n\n");
  }

  private ref(schema: Schema, hint: string, required: boolean, kind: "output" | "input"): string {
    const { type, nullable } = this.named(schema, hint, kind);
    return required && !nullable ? `${type}!` : type;
  }

  /** The (unwrapped) type of `schema` and whether null is one of its values. */
  private named(given: Schema, hint: string, kind: "output" | "input"): { type: string; nullable: boolean } {
    const schema = this.substitutes.get(given) ?? given;
    if (typeof schema.$id === "string") this.refs.set(schema.$id, schema);
    if (typeof schema.$ref === "string") {
      const target = this.refs.get(schema.$ref);
      if (!target) return { type: "JSON", nullable: true };
      return { type: this.objectType(target, String(target.$id), kind), nullable: false };
    }
    const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (variants) {
      const nonNull = variants.filter((v) => v.type !== "null");
      const nullable = nonNull.length < variants.length;
      if (nonNull.length === 1) {
        const inner = this.named(nonNull[0]!, hint, kind);
        return { type: inner.type, nullable: nullable || inner.nullable };
      }
      const literals = nonNull.map((v) => v.const);
      if (literals.every((v) => typeof v === "string")) {
        return { type: this.enumType(schema, literals as string[], hint), nullable };
      }
      if (nonNull.every((v) => v.type === "string")) return { type: "String", nullable };
      if (kind === "input" && nonNull.every((v) => v.type === "object" && v.properties)) {
        return { type: this.mergedInput(schema, nonNull, hint), nullable };
      }
      return { type: "JSON", nullable };
    }
    if (Array.isArray(schema.type)) {
      const types = (schema.type as string[]).filter((t) => t !== "null");
      const nullable = types.length < (schema.type as string[]).length;
      if (types.length !== 1) return { type: "JSON", nullable };
      return { type: this.named({ ...schema, type: types[0] }, hint, kind).type, nullable };
    }
    if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) {
      return { type: this.enumType(schema, schema.enum as string[], hint), nullable: false };
    }
    if (typeof schema.const === "string") {
      return { type: this.enumType(schema, [schema.const], hint), nullable: false };
    }
    switch (schema.type) {
      case "string":
        return { type: schema.format === "date-time" ? "DateTime" : "String", nullable: false };
      case "integer":
        return { type: "Int", nullable: false };
      case "number":
        return { type: "Float", nullable: false };
      case "boolean":
        return { type: "Boolean", nullable: false };
      case "null":
        return { type: "JSON", nullable: true };
      case "array": {
        const items = (schema.items ?? {}) as Schema;
        return { type: `[${this.ref(items, hint, true, kind)}]`, nullable: false };
      }
      case "object": {
        const props = (schema.properties ?? {}) as Record<string, Schema>;
        const usable = Object.keys(props).filter((k) => NAME.test(k) && !k.startsWith("__"));
        if (usable.length === 0 || schema.patternProperties) return { type: "JSON", nullable: false };
        return { type: this.objectType(schema, hint, kind), nullable: false };
      }
      default:
        return { type: "JSON", nullable: false };
    }
  }

  private identity(kind: string): WeakMap<object, string> {
    const m = this.byIdentity.get(kind) ?? new WeakMap<object, string>();
    this.byIdentity.set(kind, m);
    return m;
  }

  /** A free name: `base`, or `base2`, `base3`, ... when `base` is taken by another type. */
  private freeName(base: string): string {
    let name = base;
    for (let i = 2; this.definitions.has(name); i++) name = `${base}${i}`;
    return name;
  }

  private objectType(schema: Schema, hint: string, kind: "output" | "input"): string {
    const seen = this.identity(kind).get(schema);
    if (seen) return seen;
    const structure = `${kind}:${JSON.stringify(schema)}`;
    const same = this.byStructure.get(structure);
    if (same) {
      this.identity(kind).set(schema, same);
      return same;
    }
    const known = this.known.get(JSON.stringify(schema));
    const title = typeof schema.title === "string" && NAME.test(schema.title) ? schema.title : undefined;
    const base = pascal(known ?? title ?? hint);
    const name = this.freeName(
      kind === "input" && !known && !/(Query|Filter|Sort|Input)$/.test(base) ? `${base}Input` : base,
    );
    // Registered before its fields: recursive schemas refer to themselves.
    this.identity(kind).set(schema, name);
    this.byStructure.set(structure, name);
    this.definitions.set(name, { name, text: "" });
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const lines: string[] = [];
    for (const [key, prop] of Object.entries(props)) {
      if (!NAME.test(key) || key.startsWith("__")) continue;
      // Inputs: every field optional, as REST validates presence itself (one error shape).
      const type =
        key === "id" && kind === "output" && prop.type === "string"
          ? required.has(key)
            ? "ID!"
            : "ID"
          : this.ref(
              prop,
              `${name.replace(/Input$/, "")}${pascal(key)}`,
              kind === "output" && required.has(key),
              kind,
            );
      const deprecated =
        prop.deprecated === true ? ' @deprecated(reason: "Deprecated in the REST API as well.")' : "";
      lines.push(`${describe(prop.description, "  ")}  ${key}: ${type}${deprecated}`);
    }
    const keyword = kind === "output" ? "type" : "input";
    this.definitions.set(name, {
      name,
      text: `${describe(schema.description)}${keyword} ${name} {\n${lines.join("\n")}\n}`,
    });
    return name;
  }

  /**
   * An input that is one of several objects (an action by `name`): one input type with every
   * variant's fields, each optional; a field the variants type differently is JSON. The REST schema
   * then validates the value as exactly one variant.
   */
  private mergedInput(schema: Schema, variants: Schema[], hint: string): string {
    const seen = this.identity("input").get(schema);
    if (seen) return seen;
    const fields = new Map<string, Schema[]>();
    for (const v of variants) {
      for (const [k, p] of Object.entries(v.properties as Record<string, Schema>)) {
        fields.set(k, [...(fields.get(k) ?? []), p]);
      }
    }
    const properties: Record<string, Schema> = {};
    for (const [k, ps] of fields) {
      const consts = ps.flatMap((p) =>
        typeof p.const === "string" ? [p.const] : Array.isArray(p.enum) ? p.enum : [undefined],
      );
      if (consts.every((c) => typeof c === "string")) properties[k] = { enum: [...new Set(consts)] };
      else if (ps.every((p) => JSON.stringify(p) === JSON.stringify(ps[0]))) properties[k] = ps[0]!;
      else properties[k] = {};
    }
    const merged: Schema = { type: "object", properties, description: schema.description };
    if (typeof schema.title === "string") merged.title = schema.title;
    const name = this.objectType(merged, hint, "input");
    this.identity("input").set(schema, name);
    return name;
  }

  private enumType(schema: Schema, values: string[], hint: string): string {
    if (values.some((v) => !NAME.test(v) || RESERVED_ENUM_VALUES.has(v))) return "String";
    const seen = this.identity("enum").get(schema);
    if (seen) return seen;
    const structure = `enum:${[...values].sort().join(",")}`;
    const same = this.byStructure.get(structure);
    if (same) {
      this.identity("enum").set(schema, same);
      return same;
    }
    const known = this.known.get(JSON.stringify(schema));
    const title = typeof schema.title === "string" && NAME.test(schema.title) ? schema.title : undefined;
    const name = this.freeName(pascal(known ?? title ?? hint));
    this.identity("enum").set(schema, name);
    this.byStructure.set(structure, name);
    const unique = [...new Set(values)];
    this.definitions.set(name, {
      name,
      text: `${describe(schema.description)}enum ${name} {\n${unique.map((v) => `  ${v}`).join("\n")}\n}`,
    });
    return name;
  }
}
