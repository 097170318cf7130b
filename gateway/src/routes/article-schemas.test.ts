import {
  ARTICLE_LIMITS,
  ItemReturnJobLineItemArticle,
  LoadUnitLineItemArticle,
  ParcelItemArticle,
  PickLineItemArticle,
  SubstituteLineItemArticle,
} from "@fop/contracts/rest/article";
import { CURRENCY_CODES, CurrencyCode } from "@fop/contracts/rest/currency";
import { type AjvError, describeValidation } from "@fop/kit/schemas/describe";
import { bodyValidator } from "@fop/kit/schemas/validators";
import { codes } from "currency-codes";
import { describe, expect, it } from "vitest";

/** The first error of `value` against `schema`, as the gateway words it (undefined when valid). */
function error(schema: object, value: unknown): string | undefined {
  const validate = bodyValidator(schema);
  if (validate(structuredClone(value))) return undefined;
  return describeValidation("body", validate.errors![0] as AjvError);
}
const attributes = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: "v" }));
const article = (extra: Record<string, unknown> = {}) => ({ tenantArticleId: "A", title: "T", ...extra });

describe("article types: one base, one set of limits", () => {
  const lineItemArticles = [PickLineItemArticle, LoadUnitLineItemArticle, ItemReturnJobLineItemArticle];
  it.each(lineItemArticles.map((s) => [s.title, s] as const))("%s: 50 attributes, weight >= 0", (_, s) => {
    expect(error(s, article({ attributes: attributes(50), weight: 0 }))).toBeUndefined();
    expect(error(s, article({ attributes: attributes(51) }))).toBe(
      "body/attributes must NOT have more than 50 items.",
    );
    expect(error(s, article({ weight: -5 }))).toBe("body/weight must be >= 0.");
    expect(error(s, { title: "T" })).toBe('body is missing the required property "tenantArticleId".');
  });

  it.each([SubstituteLineItemArticle, ParcelItemArticle].map((s) => [s.title, s] as const))(
    "%s (AbstractArticle + attributes): 40 attributes, weight >= 0",
    (_, s) => {
      expect(error(s, article({ attributes: attributes(ARTICLE_LIMITS.abstractArticleAttributes) }))).toBe(
        undefined,
      );
      expect(error(s, article({ attributes: attributes(41) }))).toMatch(
        /attributes must NOT have more than 40/,
      );
      expect(error(s, article({ weight: -1 }))).toBe("body/weight must be >= 0.");
    },
  );
});

describe("CurrencyCode", () => {
  it("is the currency-codes package's ISO 4217 list", () => {
    expect(CURRENCY_CODES).toEqual(codes());
    expect(CURRENCY_CODES).toEqual(expect.arrayContaining(["EUR", "CHF", "USD", "GBP", "JPY"]));
    expect(CURRENCY_CODES.every((c) => /^[A-Z]{3}$/.test(c))).toBe(true);
    expect(CURRENCY_CODES).not.toContain("QQQ");
  });

  it("accepts the codes and names the field otherwise, without listing ~180 values", () => {
    expect(error(CurrencyCode, "EUR")).toBeUndefined();
    for (const bad of ["QQQ", "eur", "EURO", ""]) {
      expect(error(CurrencyCode, bad)).toBe(
        `body must be a CurrencyCode (one of the ${CURRENCY_CODES.length} values the OpenAPI document lists).`,
      );
    }
  });
});
