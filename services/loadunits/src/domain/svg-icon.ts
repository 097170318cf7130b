/**
 * SVG icons without active content. An icon is served back to browsers (GET /api/icons/{id}), so an
 * SVG that would run script, load something or navigate anywhere when opened is refused at upload,
 * with a 400 naming what was found. Parsed with saxes, a strict (well-formedness checking,
 * namespace-aware) XML parser: what it accepts is what a browser's XML parser builds, so nothing
 * can hide from the check in markup the two read differently; anything not well-formed is refused.
 *
 * Refused (element and attribute names compared case-insensitively, in any namespace):
 * - elements that run script or embed other documents: script, foreignObject, handler, listener,
 *   iframe, frame, object, embed, applet, base, meta, link; any element of the XHTML or MathML
 *   namespace;
 * - event-handler attributes (`on*`);
 * - URL attributes (href, xlink:href, src, action, formaction, data, ...) that are not a reference
 *   into the icon itself (`#id`): javascript:, data:, http(s):, relative files;
 * - animation of href or on* attributes (`<set attributeName="href" to="javascript:...">`);
 * - CSS (style elements and attributes, presentation attributes) that loads anything: `url()`
 *   other than `url(#id)`, `@import`, `image-set()`, escapes (which could spell either);
 * - processing instructions (`<?xml-stylesheet?>`), a DOCTYPE with an internal subset (entity
 *   definitions), an encoding other than UTF-8, bytes that are not UTF-8.
 */
import { invalid } from "@fop/kit/errors";
import { SaxesParser, type SaxesTagNS } from "saxes";

const XHTML = "http://www.w3.org/1999/xhtml";
const MATHML = "http://www.w3.org/1998/Math/MathML";

/** Elements that run script, embed another document or change how URLs resolve. */
const ACTIVE_ELEMENTS = new Set([
  "script",
  "foreignobject",
  "handler",
  "listener",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "base",
  "meta",
  "link",
]);
/** Attributes holding a URL the browser would follow or load. */
const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "data", "codebase", "background"]);
/** Animation elements, which can set another attribute (an href to javascript:). */
const ANIMATIONS = new Set([
  "set",
  "animate",
  "animatetransform",
  "animatemotion",
  "animatecolor",
  "discard",
]);

/** CSS that loads or could spell something that loads: url() other than url(#id), @import, escapes. */
function cssProblem(css: string): string | undefined {
  if (css.includes("\\")) return "a CSS escape";
  if (/@import/i.test(css)) return "a CSS @import";
  if (/image-set\s*\(|(^|[^\w-])src\s*\(/i.test(css)) return "a CSS image-set() or src()";
  for (const m of css.matchAll(/url\s*\(\s*(['"]?)([^'")]*)/gi)) {
    if (!m[2]!.trim().startsWith("#")) return `a CSS url(${m[2]!.trim().slice(0, 40)})`;
  }
  if (/javascript\s*:|expression\s*\(/i.test(css)) return "script in CSS";
  return undefined;
}

/** A same-document reference (`#id`), the only URL an icon may hold. */
const isFragment = (value: string) => /^\s*#/.test(value) || value.trim() === "";

/** What makes the SVG active, or undefined when it is inert. Throws nothing. */
export function activeSvgContent(content: Buffer): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(content);
  } catch {
    return "bytes that are not UTF-8";
  }
  let found: string | undefined;
  const parser = new SaxesParser({ xmlns: true });
  const styleDepth: string[] = [];
  parser.on("xmldecl", (d) => {
    if (d.encoding && !/^(utf-?8|us-ascii)$/i.test(d.encoding)) found ??= `the encoding ${d.encoding}`;
  });
  parser.on("doctype", (doctype) => {
    if (doctype.includes("[")) found ??= "a DOCTYPE with an internal subset";
  });
  parser.on("processinginstruction", (pi) => {
    found ??= `the processing instruction <?${pi.target}?>`;
  });
  parser.on("opentag", (tag: SaxesTagNS) => {
    const local = tag.local.toLowerCase();
    if (ACTIVE_ELEMENTS.has(local)) found ??= `a <${tag.name}> element`;
    else if (tag.uri === XHTML || tag.uri === MATHML) found ??= `the element <${tag.name}> of ${tag.uri}`;
    if (local === "style") styleDepth.push(tag.name);
    for (const a of Object.values(tag.attributes)) {
      const name = a.local.toLowerCase();
      if (a.prefix === "xmlns" || (a.prefix === "" && a.local === "xmlns")) continue;
      if (name.startsWith("on")) found ??= `the event-handler attribute ${a.name}`;
      else if (URL_ATTRIBUTES.has(name) && !isFragment(a.value))
        found ??= `${a.name}="${a.value.slice(0, 40)}" (only #id references are allowed)`;
      else if (
        ANIMATIONS.has(local) &&
        name === "attributename" &&
        (/href$/i.test(a.value) || /^on/i.test(a.value.trim()))
      )
        found ??= `an animation of ${a.value}`;
      else {
        const css = cssProblem(a.value);
        // style, and presentation attributes (fill="url(...)"): a function call needs a literal "(".
        if (css && (name === "style" || a.value.includes("("))) found ??= `${css} in ${a.name}`;
      }
    }
  });
  parser.on("closetag", (tag) => {
    if (tag.local?.toLowerCase() === "style") styleDepth.pop();
  });
  const styleText = (t: string) => {
    if (styleDepth.length) {
      const css = cssProblem(t);
      if (css) found ??= `${css} in <style>`;
    }
  };
  parser.on("text", styleText);
  parser.on("cdata", styleText);
  try {
    parser.write(text).close();
  } catch (err) {
    return found ?? `markup that is not well-formed XML (${(err as Error).message.slice(0, 120)})`;
  }
  return found;
}

/** 400 ICON_ACTIVE_CONTENT naming what makes an SVG icon active (see the file's head). */
export function checkSvgIcon(content: Buffer, field: string): void {
  const found = activeSvgContent(content);
  if (found) {
    throw invalid(
      "ICON_ACTIVE_CONTENT",
      `The SVG icon holds ${found}. Icons must be inert: no scripts, event handlers, foreignObject, javascript:/data: URLs or external references.`,
      field,
    );
  }
}
