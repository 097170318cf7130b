/**
 * Localized maps ({de_DE: "Kiste", en_US: "Box"}) resolved to one value: the requested locale,
 * else the same locale written with the other separator (en-US / en_US), else the service's
 * default locale, else the first entry. An empty or missing map resolves to nothing.
 */
export type Localized = Record<string, string>;

export function resolveLocalized(
  map: Localized | null | undefined,
  locale: string | undefined,
  defaultLocale: string,
): string | undefined {
  if (!map) return undefined;
  for (const key of [locale, locale?.replace("-", "_"), locale?.replace("_", "-"), defaultLocale]) {
    if (key && Object.hasOwn(map, key) && typeof map[key] === "string") return map[key];
  }
  for (const value of Object.values(map)) if (typeof value === "string") return value;
  return undefined;
}

interface NamedLocalized {
  name?: string;
  description?: string;
  nameLocalized?: Localized;
  descriptionLocalized?: Localized;
}

/** A copy whose name and description are resolved for the locale (dropped when nothing resolves). */
export function localizeNameAndDescription<T extends NamedLocalized>(
  doc: T,
  locale: string | undefined,
  defaultLocale: string,
): T {
  const out = { ...doc };
  const name = resolveLocalized(doc.nameLocalized, locale, defaultLocale);
  if (name === undefined) delete out.name;
  else out.name = name;
  const description = resolveLocalized(doc.descriptionLocalized, locale, defaultLocale);
  if (description === undefined) delete out.description;
  else out.description = description;
  return out;
}
