/**
 * Every request body of every route, walked beside the reference's schema for that operation: an
 * object the reference closes (`additionalProperties: false`) is closed here too (extras are a 400),
 * and an object the reference leaves open but describes is open here as well (a platform client's
 * extra property is accepted) — the gateway then drops what it does not declare instead of storing
 * it (@fop/kit/schemas/strip.ts). Where we are deliberately stricter, the exception is listed with its reason.
 */

import { readFileSync } from "node:fs";
import { openApiDocument } from "@fop/gateway";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REFERENCE_FILE, referenceMissing } from "../../support/reference.ts";

type Schema = Record<string, any>;

/** Positions where we close what the reference leaves open, on purpose. */
const STRICTER_ON_PURPOSE: [RegExp, string][] = [
  [
    /^POST \/api\/(categories|pickjobs|audits|facilitygroups|notifications)\/search body/,
    "search payloads, queries, filters and sorts: an unknown field or operator is a 400 (DESIGN.md)",
  ],
  [
    /^PATCH \/api\/configurations\/picking body/,
    "the picking configuration governs behaviour: a misspelt sub-configuration or field would be dropped and silently change nothing",
  ],
];

/** Bodies the reference subset does not describe; their shape comes from elsewhere (said why). */
const NOT_IN_REFERENCE: Record<string, string> = {
  "POST /api/subscriptions":
    "webhook subscriptions: shaped by the platform's published TypeScript SDK (SubscriptionForCreation)",
  "PUT /api/configurations/handover":
    "ours: the reference only reads the refuse reasons (GET .../handover/refusereasons); each entry is its AvailableRefusedReason",
};

/** Our titles for what the reference names otherwise (ours has its own name as it differs from the reference's response schema). */
const REFERENCE_NAME: Record<string, string> = {
  LoadUnitForPatch: "LoadUnit",
  CarrierConfigurationForPut: "CarrierConfiguration",
};

describe.skipIf(Boolean(referenceMissing))("request bodies are as closed as the reference's", () => {
  it("closed where the reference closes, open (and stripped) where it leaves open", async () => {
    const ref = parse(readFileSync(REFERENCE_FILE, "utf8")) as Schema;
    const ours = (await openApiDocument()) as Schema;
    const refDeref = (s: Schema | undefined): Schema | undefined =>
      s?.$ref ? refDeref(ref.components.schemas[s.$ref.split("/").pop()]) : s;
    /** Ours behind its $ref; X for X or null (OpenAPI 3.1's anyOf [X, {type: null}], the reference's nullable X). */
    const ourDeref = (s: Schema | undefined): Schema | undefined => {
      if (s?.$ref) return ourDeref(ours.components?.schemas?.[s.$ref.split("/").pop()]);
      const variants: Schema[] | undefined = s?.anyOf ?? s?.oneOf;
      const notNull = variants?.filter((v) => v?.type !== "null");
      return notNull?.length === 1 && variants?.length === 2 ? ourDeref(notNull[0]) : s;
    };
    /** The reference's object with its allOf members merged; closed if it or a member says so. */
    const flat = (s0: Schema | undefined): Schema | undefined => {
      const s = refDeref(s0);
      if (!s?.allOf) return s;
      const out: Schema = { ...s, properties: { ...(s.properties ?? {}) }, allOf: undefined };
      for (const m of s.allOf.map(flat)) {
        Object.assign(out.properties, m?.properties ?? {});
        if (m?.additionalProperties === false) out.additionalProperties = false;
      }
      return out;
    };
    const problems: string[] = [];
    let compared = 0;
    const walk = (r0: Schema | undefined, o0: Schema | undefined, at: string, depth: number) => {
      const r = flat(r0);
      const o = ourDeref(o0);
      if (!r || !o || depth > 12) return;
      const rVariants = r.oneOf ?? r.anyOf;
      const oVariants = o.oneOf ?? o.anyOf;
      if (rVariants || oVariants) {
        for (const rv of (rVariants ?? [r]).map(flat)) {
          const ov = (oVariants ?? [o])
            .map(ourDeref)
            .find((v: Schema) => v?.title && (REFERENCE_NAME[v.title] ?? v.title) === rv?.title);
          if (ov) walk(rv, ov, `${at}<${rv?.title}>`, depth + 1);
          else if (rv?.type === "object" && rv.properties && (oVariants ?? []).length > 1)
            problems.push(`${at}: the reference's variant ${rv.title} has no counterpart`);
        }
        if (rVariants) return;
      }
      if (r.type === "array") return walk(r.items, o.items, `${at}[]`, depth + 1);
      if (!r.properties) return;
      compared++;
      const refClosed = r.additionalProperties === false;
      const oursClosed = o.additionalProperties === false;
      if (refClosed && !oursClosed)
        problems.push(`${at} (${r.title ?? "inline"}): the reference closes it, we do not`);
      if (!refClosed && oursClosed && !STRICTER_ON_PURPOSE.some(([re]) => re.test(at)))
        problems.push(`${at} (${r.title ?? "inline"}): the reference leaves it open, we close it`);
      for (const [k, v] of Object.entries(r.properties as Record<string, Schema>)) {
        if (o.properties?.[k]) walk(v, o.properties[k], `${at}/${k}`, depth + 1);
      }
    };
    for (const [path, methods] of Object.entries(ours.paths as Record<string, Schema>)) {
      for (const [method, op] of Object.entries(methods)) {
        const body = op.requestBody?.content?.["application/json"]?.schema;
        if (!body) continue;
        const refBody = ref.paths[path]?.[method]?.requestBody?.content?.["application/json"]?.schema;
        if (!refBody) {
          if (NOT_IN_REFERENCE[`${method.toUpperCase()} ${path}`]) continue;
          problems.push(`${method.toUpperCase()} ${path}: no such request body in the reference`);
          continue;
        }
        walk(refBody, body, `${method.toUpperCase()} ${path} body`, 0);
      }
    }
    expect(problems).toEqual([]);
    console.info(`closedness: ${compared} objects compared with the reference's`);
    expect(compared).toBeGreaterThan(100);
  });
});
