/** The reference's SupportedLocale: the languages a user (an e-mail receiver) can choose. */
export const SUPPORTED_LOCALES = [
  "de_DE",
  "en_US",
  "pl_PL",
  "ru_RU",
  "nl_NL",
  "fr_FR",
  "it_IT",
  "nb_NO",
  "es_ES",
  "cs_CZ",
  "sk_SK",
  "pt_PT",
  "sl_SI",
  "ro_RO",
  "bg_BG",
  "hr_HR",
  "hu_HU",
  "tr_TR",
] as const;
export type SupportedLocale = (typeof SUPPORTED_LOCALES)[number];
