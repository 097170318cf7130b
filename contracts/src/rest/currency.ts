/**
 * Currency codes: every field of the REST/GraphQL vocabulary that takes a currency takes one of the
 * ISO 4217 codes, from the maintained list of the `currency-codes` package (its data follows the ISO
 * maintenance agency's list one; the package's `publishDate` says which edition). Not a hand-typed
 * copy: a new edition is a version bump of that package.
 */
import { Type } from "@sinclair/typebox";
import { codes, publishDate } from "currency-codes";
import { opt } from "./common.ts";

/** The ISO 4217 alphabetic codes (three capital letters), as the package's edition lists them. */
export const CURRENCY_CODES: readonly string[] = Object.freeze(codes());

/** The ISO 4217 edition the list follows (the package's data date). */
export const CURRENCY_CODES_EDITION: string = publishDate;

/**
 * The reference's CurrencyCode (`type: string, enum: [...]`): one `enum` error naming the field.
 * Use it for every currency a request carries, also where the reference writes a plain string.
 */
export const CurrencyCode = Type.Unsafe<string>({
  type: "string",
  enum: [...CURRENCY_CODES],
  title: "CurrencyCode",
  description:
    "The currency code is a three-letter code that represents a currency in the ISO 4217 standard.",
});

export const PaymentInformation = Type.Object(
  { currency: opt(CurrencyCode) },
  { title: "PaymentInformation" },
);
