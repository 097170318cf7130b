/**
 * Every operation of our OpenAPI document has an `operationId` (declared beside its route's summary):
 * the reference's own (../shared/reference/openapi-subset.yaml) for every operation the reference
 * has, matched on method and path template with the parameter names set aside (`{pickjobId}` there,
 * `{pickJobId}` here), and one of ours in the same camelCase style for the rest; none twice. A client
 * generated from the platform's description therefore finds its method names in ours.
 */
import { openApiDocument } from "@fop/gateway";
import { beforeAll, describe, expect, it } from "vitest";
import { referenceDocument, referenceMissing } from "../../support/reference.ts";

if (referenceMissing) console.warn(referenceMissing);

const METHODS = ["get", "put", "post", "patch", "delete"] as const;

/** "METHOD /path/{}" for an operation: its path template with every parameter's name dropped. */
function key(method: string, template: string): string {
  return `${method.toUpperCase()} ${template.replace(/\{[^}]+\}/g, "{}")}`;
}

/** Every operation of a document, by `key`, with its operationId (undefined when it has none). */
function operationIds(paths: Record<string, Record<string, { operationId?: string }>>) {
  const out = new Map<string, string | undefined>();
  for (const [template, item] of Object.entries(paths))
    for (const m of METHODS) if (item[m]) out.set(key(m, template), item[m].operationId);
  return out;
}

describe("operationIds", () => {
  let ours: Map<string, string | undefined>;
  beforeAll(async () => {
    const doc = (await openApiDocument()) as { paths: Parameters<typeof operationIds>[0] };
    ours = operationIds(doc.paths);
    expect(ours.size).toBeGreaterThan(100);
  });

  it("every operation of ours has one, camelCase, and none is used twice", () => {
    const missing = [...ours].filter(([, id]) => !id).map(([op]) => op);
    expect(missing).toEqual([]);
    const notCamel = [...ours].filter(([, id]) => !/^[a-z][A-Za-z0-9]*$/.test(id ?? "")).map(([op]) => op);
    expect(notCamel).toEqual([]);
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [op, id] of ours) {
      const first = seen.get(id as string);
      if (first) twice.push(`${id}: ${first} and ${op}`);
      else seen.set(id as string, op);
    }
    expect(twice).toEqual([]);
  });

  it.skipIf(Boolean(referenceMissing))(
    "is the reference's on every operation the reference has (method and path, parameter names aside)",
    () => {
      const reference = operationIds(
        referenceDocument().paths as Record<string, Record<string, { operationId?: string }>>,
      );
      const differ: string[] = [];
      let shared = 0;
      for (const [op, id] of reference) {
        if (!ours.has(op)) continue;
        shared++;
        if (ours.get(op) !== id) differ.push(`${op}: ours ${ours.get(op)}, the reference's ${id}`);
      }
      console.info(
        `operationIds: ${shared} operations shared with the reference (of its ${reference.size}), ${shared - differ.length} equal; ${ours.size - shared} of ours only`,
      );
      expect(differ).toEqual([]);
      // Every reference operation is served (reference-routes.test.ts), so every one is compared.
      expect(shared).toBe(reference.size);
    },
  );
});
