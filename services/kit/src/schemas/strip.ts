/**
 * Whitelist on the way in. A request object the reference leaves open (no `additionalProperties`)
 * but describes (it has `properties`) accepts unknown properties, as the platform does, but they
 * are dropped here, after validation, instead of being passed on and stored: a pick job's
 * expected line cannot smuggle in `status`, `picked` or `tenant`. Objects the reference closes
 * (`additionalProperties: false`) are rejected by the validator instead; free-form ones
 * (`additionalProperties: true`, e.g. customAttributes) are kept as they are.
 *
 * {@link compileStripper} turns a route's body schema into one function, once, at start-up; a schema
 * with nothing to strip anywhere compiles to nothing.
 */
import type { Ajv, ValidateFunction } from "ajv";

type Schema = Record<string, unknown>;
type Strip = (value: unknown) => void;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The function that strips `schema`'s undeclared properties from a valid value, or undefined. */
export function compileStripper(schema: unknown, ajv: Ajv): Strip | undefined {
  const byId = new Map<string, Schema>();
  const collect = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (isObject(node)) {
      if (typeof node.$id === "string") byId.set(node.$id, node);
      for (const v of Object.values(node)) collect(v);
    }
  };
  collect(schema);
  // Recursive schemas ($ref to an enclosing $id): compiled lazily, once.
  const compiled = new Map<Schema, Strip | undefined | "compiling">();

  const compile = (node: unknown): Strip | undefined => {
    if (!isObject(node)) return undefined;
    if (typeof node.$ref === "string") {
      const target = byId.get(node.$ref);
      if (!target) return undefined;
      const state = compiled.get(target);
      if (state === "compiling") return (v) => (compiled.get(target) as Strip | undefined)?.(v);
      return state ?? compileNode(target);
    }
    return compileNode(node);
  };

  const compileNode = (node: Schema): Strip | undefined => {
    if (compiled.has(node) && compiled.get(node) !== "compiling") return compiled.get(node) as Strip;
    compiled.set(node, "compiling");
    const fn = build(node);
    compiled.set(node, fn);
    return fn;
  };

  const build = (node: Schema): Strip | undefined => {
    const parts: Strip[] = [];
    const variants = (node.oneOf ?? node.anyOf) as unknown[] | undefined;
    if (Array.isArray(variants)) {
      const strips = variants.map(compile);
      if (strips.some(Boolean)) {
        const tag = (node.discriminator as { propertyName?: string } | undefined)?.propertyName;
        if (tag) {
          // The variant whose one-value enum (or const) the value's tag names.
          const byTag = new Map<unknown, Strip | undefined>();
          variants.forEach((v, i) => {
            const p = (v as Schema).properties as Record<string, Schema> | undefined;
            for (const value of (p?.[tag]?.enum as unknown[] | undefined) ?? [p?.[tag]?.const])
              byTag.set(value, strips[i]);
          });
          parts.push((v) => {
            if (isObject(v)) byTag.get(v[tag])?.(v);
          });
        } else {
          // The first variant the value is valid against.
          const checks: (ValidateFunction | undefined)[] = [];
          parts.push((v) => {
            for (let i = 0; i < variants.length; i++) {
              checks[i] ??= ajv.compile(variants[i] as Schema);
              if (checks[i]!(v)) return void strips[i]?.(v);
            }
          });
        }
      }
    }
    for (const member of (node.allOf as unknown[] | undefined) ?? []) {
      const s = compile(member);
      if (s) parts.push(s);
    }
    const items = node.items;
    if (items !== undefined) {
      const s = compile(items);
      if (s)
        parts.push((v) => {
          if (Array.isArray(v)) for (const x of v) s(x);
        });
    }
    const properties = node.properties as Record<string, unknown> | undefined;
    if (properties) {
      const declared = new Set(Object.keys(properties));
      if (node.additionalProperties === undefined && declared.size > 0) {
        parts.push((v) => {
          if (!isObject(v)) return;
          for (const k of Object.keys(v)) if (!declared.has(k)) delete v[k];
        });
      }
      for (const [k, sub] of Object.entries(properties)) {
        const s = compile(sub);
        if (s)
          parts.push((v) => {
            if (isObject(v) && Object.hasOwn(v, k)) s(v[k]);
          });
      }
    }
    if (isObject(node.additionalProperties)) {
      const s = compile(node.additionalProperties);
      if (s) {
        const declared = new Set(Object.keys(properties ?? {}));
        parts.push((v) => {
          if (isObject(v)) for (const [k, x] of Object.entries(v)) if (!declared.has(k)) s(x);
        });
      }
    }
    if (parts.length === 0) return undefined;
    if (parts.length === 1) return parts[0];
    return (v) => {
      for (const p of parts) p(v);
    };
  };

  return compile(schema);
}
