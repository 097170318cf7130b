/**
 * Operative container types and the deprecated load unit types: one store, two shapes. Creation
 * from the reference's creation inputs, the OCT partial update, the load unit type's
 * ModifyLoadUnitType actions, the list filters, icons. Pure functions; no I/O.
 */
import { invalid } from "@fop/kit/errors";
import { localizeNameAndDescription } from "./locale.ts";
import { checkSvgIcon } from "./svg-icon.ts";
import type { ChangeContext, ContainerType, ContainerTypeKind, JsonObject } from "./types.ts";

const OCT_FIELDS = [
  "nameLocalized",
  "descriptionLocalized",
  "allowedOperativeTypes",
  "customAttributes",
  "dimensions",
  "iconUrl",
  "priority",
  "scannableIdentifiers",
  "status",
  "weightLimitInG",
] as const;
const LUT_FIELDS = [
  "nameLocalized",
  "descriptionLocalized",
  "dimensions",
  "priority",
  "weightLimitInG",
] as const;

function copyPresent(to: Record<string, unknown>, from: JsonObject, keys: readonly string[]): void {
  for (const k of keys) if (from[k] !== undefined && from[k] !== null) to[k] = from[k];
}

/** A new type from OperativeContainerTypeForCreation / LoadUnitTypeForCreation (without its icon). */
export function createContainerType(
  kind: ContainerTypeKind,
  id: string,
  body: JsonObject,
  c: ChangeContext,
): ContainerType {
  const at = c.now.toISOString();
  const type: ContainerType = { id, version: 1, created: at, lastModified: at, nameLocalized: {} };
  copyPresent(
    type as unknown as Record<string, unknown>,
    body,
    kind === "OPERATIVE" ? OCT_FIELDS : LUT_FIELDS,
  );
  if (kind === "OPERATIVE") {
    type.status ??= "ACTIVE";
    type.allowedOperativeTypes = [...new Set(type.allowedOperativeTypes ?? [])];
  }
  return localizeContainerType(type, undefined, c.defaultLocale);
}

/** PATCH /api/operativecontainertypes/{id}: the fields the body gives replace the stored ones. */
export function updateOperativeContainerType(
  type: ContainerType,
  body: JsonObject,
  c: ChangeContext,
): ContainerType {
  const next = { ...type, version: type.version + 1, lastModified: c.now.toISOString() };
  copyPresent(next as unknown as Record<string, unknown>, body, OCT_FIELDS);
  if (next.allowedOperativeTypes) next.allowedOperativeTypes = [...new Set(next.allowedOperativeTypes)];
  return localizeContainerType(next, undefined, c.defaultLocale);
}

/** PATCH /api/loadunittypes/{id}: each ModifyLoadUnitType action overwrites the fields it gives. */
export function modifyLoadUnitType(type: ContainerType, body: JsonObject, c: ChangeContext): ContainerType {
  const next = { ...type, version: type.version + 1, lastModified: c.now.toISOString() };
  const actions = Array.isArray(body.actions) ? body.actions : [];
  for (const [i, a] of actions.entries()) {
    const action = (a ?? {}) as JsonObject;
    if (action.action !== "ModifyLoadUnitType") {
      throw invalid("UNKNOWN_ACTION", "Each action must be ModifyLoadUnitType.", `/actions/${i}/action`);
    }
    copyPresent(next as unknown as Record<string, unknown>, action, LUT_FIELDS);
  }
  return localizeContainerType(next, undefined, c.defaultLocale);
}

export function localizeContainerType(
  type: ContainerType,
  locale: string | undefined,
  defaultLocale: string,
): ContainerType {
  return localizeNameAndDescription(type, locale, defaultLocale);
}

/**
 * Whether a scanned value matches a type's scannable identifier: PREFIX / SUFFIX / CONTAINS apply
 * that test to each identifier; without a searchType the value must equal one.
 */
export function matchesScannable(type: ContainerType, scanned: string): boolean {
  return (type.scannableIdentifiers ?? []).some((s) =>
    s.identifiers.some((id) =>
      s.searchType === "PREFIX"
        ? scanned.startsWith(id)
        : s.searchType === "SUFFIX"
          ? scanned.endsWith(id)
          : s.searchType === "CONTAINS"
            ? scanned.includes(id)
            : scanned === id,
    ),
  );
}

// --- icons ---------------------------------------------------------------------------------------

/** Media types an icon may have, recognised by their content (not by the file name). */
const SIGNATURES: [string, (b: Buffer) => boolean][] = [
  [
    "image/png",
    (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  ],
  ["image/jpeg", (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["image/gif", (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString("latin1"))],
  [
    "image/webp",
    (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
  ],
  [
    "image/svg+xml",
    (b) =>
      /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(
        b.subarray(0, 1024).toString("utf8"),
      ),
  ],
];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface Icon {
  fileName: string;
  mediaType: string;
  content: Buffer;
}

/**
 * A NamedFile ({name, content: base64}) checked as an icon: valid base64, not empty, at most
 * `maxBytes` decoded, and a PNG, JPEG, GIF, WebP or SVG image by its content; an SVG without active
 * content (svg-icon.ts).
 */
export function checkIcon(file: { name?: unknown; content?: unknown }, maxBytes: number, field = ""): Icon {
  const name = typeof file.name === "string" ? file.name : "";
  const text = typeof file.content === "string" ? file.content.replace(/\s+/g, "") : "";
  if (!name) throw invalid("ICON_NAME_REQUIRED", "The icon needs a file name.", `${field}/name`);
  if (!text || text.length % 4 !== 0 || !BASE64.test(text)) {
    throw invalid(
      "ICON_NOT_BASE64",
      "The icon's content must be a non-empty base64 string.",
      `${field}/content`,
    );
  }
  const content = Buffer.from(text, "base64");
  if (content.length > maxBytes) {
    throw invalid(
      "ICON_TOO_LARGE",
      `The icon has ${content.length} bytes; at most ${maxBytes} are accepted.`,
      `${field}/content`,
    );
  }
  const mediaType = SIGNATURES.find(([, test]) => test(content))?.[0];
  if (!mediaType) {
    throw invalid(
      "ICON_TYPE_NOT_SUPPORTED",
      "The icon must be a PNG, JPEG, GIF, WebP or SVG image.",
      `${field}/content`,
    );
  }
  if (mediaType === "image/svg+xml") checkSvgIcon(content, `${field}/content`);
  return { fileName: name, mediaType, content };
}

/** Where a stored icon is served (the gateway's GET /api/icons/{iconId}). */
export const iconUrl = (iconId: string) => `/api/icons/${iconId}`;
