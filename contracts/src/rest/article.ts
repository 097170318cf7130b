/**
 * Articles: one base and one set of limits for every family's article types. The reference writes
 * each family's article separately (LineItemArticle/PickLineItemArticle, LoadUnitLineItemArticle,
 * ItemReturnJobLineItemArticle, SubstituteLineItemArticle, ParcelItemArticle) and lets their limits
 * drift (load unit and item return job articles take 100 attributes and, for load units, any weight);
 * the spec's limits are one rule: at most 50 attributes per line item article, weight in grams >= 0.
 * Every article type here is the AbstractArticle base plus its attributes (and the deprecated
 * prices where the reference has them); the families import their type from here.
 */
import { Type } from "@sinclair/typebox";
import { CustomAttributes, closed, LocaleString, opt, StringEnum } from "./common.ts";
import { CurrencyCode } from "./currency.ts";

/** The limits of the article fields (spec, "Limits"), for every article type. */
export const ARTICLE_LIMITS = {
  /** Attributes per line item article (pick, pick run, load unit, item return job lines). */
  lineItemAttributes: 50,
  /** Attributes of a substitute's or a parcel item's article (the reference's AbstractArticle + 40). */
  abstractArticleAttributes: 40,
  /** Deprecated prices per article. */
  prices: 50,
  /** Weight in grams. */
  minWeight: 0,
} as const;

export const ArticleAttributeItemContext = Type.Object(
  {
    type: StringEnum(["FACILITY_GROUP", "FACILITY", "TAG_REFERENCE"], {
      description: "Indicates the entity type the value refers to.",
    }),
    value: Type.String({ minLength: 1 }),
  },
  { title: "ArticleAttributeItemContext" },
);

export const ArticleAttributeItem = Type.Object(
  {
    valueLocalized: opt(LocaleString),
    keyLocalized: opt(LocaleString),
    category: opt(
      StringEnum([
        "descriptive",
        "miscellaneous",
        "pickingSequence",
        "customs",
        "insurance",
        "shop",
        "dimensions",
        "carrierService",
        "salesPrice",
        "basePrice",
        "tax",
        "discount",
        "surcharge",
        "subtotalBeforeDiscounts",
        "subtotalAfterDiscounts",
        "finalUnitPrice",
        "finalLineItemPrice",
      ]),
    ),
    context: opt(ArticleAttributeItemContext),
    key: Type.String({ minLength: 1, examples: ["%%subtitle%%"] }),
    priority: opt(Type.Integer({ minimum: 1, maximum: 1001 })),
    type: opt(
      StringEnum(["STRING", "NUMBER", "CURRENCY", "BOOLEAN"], {
        default: "STRING",
        description: "The type of the attribute.",
      }),
    ),
    value: Type.String({ minLength: 1, examples: ["585er Gold"] }),
  },
  { title: "ArticleAttributeItem" },
);

export const ArticlePrice = Type.Object(
  {
    currency: Type.Union([CurrencyCode, Type.Null()]),
    pricePerUnit: Type.Number({ minimum: 0, description: "Price value for a given currency per unit" }),
  },
  { ...closed, title: "ArticlePrice" },
);

/** AbstractArticle: the fields every article has, with their limits. */
export const abstractArticleProperties = {
  titleLocalized: opt(LocaleString),
  customAttributes: opt(CustomAttributes),
  imageUrl: opt(
    Type.String({
      description:
        "A web link to a picture of this article. Ensure that no authentication is needed to fetch the image.",
    }),
  ),
  tenantArticleId: Type.String({
    description: "This is a reference to an article number",
    examples: ["4711"],
  }),
  title: Type.String({ description: "The title of the product", examples: ["Cologne Water"] }),
  weight: opt(Type.Number({ minimum: ARTICLE_LIMITS.minWeight, description: "Weight value is in gram" })),
};

/** The attributes list, placed after `titleLocalized` as the reference orders the fields. */
const withAttributes = (maxItems: number) => {
  const { titleLocalized, ...rest } = abstractArticleProperties;
  return { titleLocalized, attributes: opt(Type.Array(ArticleAttributeItem, { maxItems })), ...rest };
};
const prices = opt(Type.Array(ArticlePrice, { maxItems: ARTICLE_LIMITS.prices, deprecated: true }));

/** LineItemArticle: AbstractArticle + at most 50 attributes. */
export const lineItemArticleProperties = withAttributes(ARTICLE_LIMITS.lineItemAttributes);

/** Reference: allOf[LineItemArticle] + the deprecated prices (its customAttributes deprecated). */
export const PickLineItemArticle = Type.Object(
  {
    ...lineItemArticleProperties,
    customAttributes: opt(
      Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
        deprecated: true,
        description: "Deprecated: use customAttributes on lineItem instead.",
      }),
    ),
    prices,
  },
  { title: "PickLineItemArticle" },
);

/** Reference: LoadUnitLineItemArticle, with the line item article's limits. */
export const LoadUnitLineItemArticle = Type.Object(lineItemArticleProperties, {
  title: "LoadUnitLineItemArticle",
});

/** Reference: ItemReturnJobLineItemArticle (+ the deprecated prices), with the line item article's limits. */
export const ItemReturnJobLineItemArticle = Type.Object(
  { ...lineItemArticleProperties, prices },
  { title: "ItemReturnJobLineItemArticle" },
);

/** AbstractArticle + at most 40 attributes (reference: SubstituteLineItemArticle, ParcelItemArticle). */
const abstractArticleWithAttributes = withAttributes(ARTICLE_LIMITS.abstractArticleAttributes);
export const SubstituteLineItemArticle = Type.Object(abstractArticleWithAttributes, {
  title: "SubstituteLineItemArticle",
});
export const ParcelItemArticle = Type.Object(abstractArticleWithAttributes, { title: "ParcelItemArticle" });

/** A line's measurement unit key (`measurementUnitKey`, `secondaryMeasurementUnitKey`). */
export const UnitKey = (minLength?: number) =>
  Type.String({
    description: "Identifier for items unit of measurement.",
    ...(minLength ? { minLength } : {}),
  });
