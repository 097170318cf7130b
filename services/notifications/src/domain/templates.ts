/**
 * What a notification says, per event kind, in English and German (every other SupportedLocale
 * reads English): a title (the e-mail's subject) and a message, with the entity filled in. E-mails
 * carry it as plain text and HTML (escaped). Pure functions.
 */
import type { JsonObject } from "./types.ts";

export type Language = "en" | "de";

/** The facts a text is built from. */
export interface EventFacts {
  event: string;
  /** What the entity is called for people: the order id, the pick job's short id, else its id. */
  label: string;
  facilityRef?: string | undefined;
}

interface Text {
  title: (f: EventFacts) => string;
  message: (f: EventFacts) => string;
}

const at = (f: EventFacts, en: boolean) =>
  f.facilityRef ? (en ? ` in facility ${f.facilityRef}` : ` in Filiale ${f.facilityRef}`) : "";

const TEXTS: Record<string, Record<Language, Text>> = {
  PICK_JOB_CREATED: {
    en: { title: () => "New pick job", message: (f) => `Pick job ${f.label} was created${at(f, true)}.` },
    de: {
      title: () => "Neuer Pickauftrag",
      message: (f) => `Pickauftrag ${f.label} wurde${at(f, false)} angelegt.`,
    },
  },
  UPCOMING_TIME_TRIGGERED_REROUTE: {
    en: {
      title: () => "Reroute coming up",
      message: (f) => `${f.label} will be rerouted soon${at(f, true)} unless it is picked.`,
    },
    de: {
      title: () => "Umroutung steht bevor",
      message: (f) => `${f.label} wird bald umgeroutet${at(f, false)}, wenn er nicht gepickt wird.`,
    },
  },
  ROUTING_PLAN_NOT_ROUTABLE: {
    en: {
      title: () => "Order not routable",
      message: (f) => `Routing plan ${f.label} found no facility to fulfil it.`,
    },
    de: {
      title: () => "Bestellung nicht routbar",
      message: (f) => `Routingplan ${f.label} hat keine Filiale gefunden, die ihn erfüllt.`,
    },
  },
  ROUTING_PLAN_WAITING: {
    en: {
      title: () => "Routing plan waiting",
      message: (f) => `Routing plan ${f.label} is waiting to be routed.`,
    },
    de: {
      title: () => "Routingplan wartet",
      message: (f) => `Routingplan ${f.label} wartet auf das Routing.`,
    },
  },
  ORDER_MODIFIED: {
    en: { title: () => "Order modified", message: (f) => `Order ${f.label} was modified.` },
    de: { title: () => "Bestellung geändert", message: (f) => `Bestellung ${f.label} wurde geändert.` },
  },
  ORDER_UNLOCKED: {
    en: { title: () => "Order unlocked", message: (f) => `Order ${f.label} was unlocked.` },
    de: { title: () => "Bestellung entsperrt", message: (f) => `Bestellung ${f.label} wurde entsperrt.` },
  },
  LOCKED_ORDER_CREATED: {
    en: { title: () => "Locked order created", message: (f) => `Order ${f.label} was created locked.` },
    de: {
      title: () => "Gesperrte Bestellung angelegt",
      message: (f) => `Bestellung ${f.label} wurde gesperrt angelegt.`,
    },
  },
  ORDER_FORCE_CANCELLED: {
    en: { title: () => "Order force-cancelled", message: (f) => `Order ${f.label} was force-cancelled.` },
    de: {
      title: () => "Bestellung zwangsstorniert",
      message: (f) => `Bestellung ${f.label} wurde zwangsstorniert.`,
    },
  },
  ORDER_CANCELLED_BY_EXPIRY: {
    en: {
      title: () => "Order expired",
      message: (f) => `Order ${f.label} was cancelled because it expired.`,
    },
    de: {
      title: () => "Bestellung abgelaufen",
      message: (f) => `Bestellung ${f.label} wurde storniert, weil sie abgelaufen ist.`,
    },
  },
  ORDER_CANCELLED: {
    en: { title: () => "Order cancelled", message: (f) => `Order ${f.label} was cancelled.` },
    de: { title: () => "Bestellung storniert", message: (f) => `Bestellung ${f.label} wurde storniert.` },
  },
};

const FALLBACK: Record<Language, Text> = {
  en: { title: (f) => f.event, message: (f) => `${f.event}: ${f.label}${at(f, true)}.` },
  de: { title: (f) => f.event, message: (f) => `${f.event}: ${f.label}${at(f, false)}.` },
};

/** The language of a SupportedLocale such as de_DE: German for de, English otherwise. */
export const languageOf = (locale: string): Language => (locale.toLowerCase().startsWith("de") ? "de" : "en");

export function render(f: EventFacts, language: Language): { title: string; message: string } {
  const t = (TEXTS[f.event] ?? FALLBACK)[language];
  return { title: t.title(f), message: t.message(f) };
}

/** The texts in every language we write, keyed by the locale the reference shows (en_US, de_DE). */
export function renderLocalized(f: EventFacts): {
  title: Record<string, string>;
  message: Record<string, string>;
} {
  const en = render(f, "en");
  const de = render(f, "de");
  return { title: { en_US: en.title, de_DE: de.title }, message: { en_US: en.message, de_DE: de.message } };
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string,
  );

const FOOTER: Record<Language, string> = {
  en: "You receive this e-mail because your address is a receiver of a notification channel.",
  de: "Sie erhalten diese E-Mail, weil Ihre Adresse Empfänger eines Benachrichtigungskanals ist.",
};

/** An e-mail for one receiver: subject, plain text and HTML in the receiver's language. */
export function renderEmail(f: EventFacts, locale: string): JsonObject {
  const language = languageOf(locale);
  const { title, message } = render(f, language);
  const footer = FOOTER[language];
  return {
    language,
    subject: title,
    text: `${message}\n\n--\n${footer}\n`,
    html: `<!doctype html><html lang="${language}"><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><hr><p><small>${escapeHtml(footer)}</small></p></body></html>`,
  };
}
