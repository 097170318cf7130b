import { describe, expect, it } from "vitest";
import { checkIcon } from "./container-type.ts";
import { activeSvgContent } from "./svg-icon.ts";

const NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
const svg = (body: string, attrs = "") => Buffer.from(`<svg ${NS}${attrs}>${body}</svg>`);

describe("SVG icons: inert ones pass", () => {
  it.each([
    [
      "shapes",
      svg('<rect width="10" height="10" fill="#0a0"/><path d="M0 0L10 10" transform="translate(1)"/>'),
    ],
    [
      "a gradient referenced by #id",
      svg('<defs><linearGradient id="g"/></defs><rect fill="url(#g)" style="fill: url( \'#g\' )"/>'),
    ],
    ["use of an own symbol", svg('<symbol id="s"/><use href="#s"/><use xlink:href="#s"/>')],
    [
      "a style element without URLs",
      svg("<style>.a { fill: red; }</style><style><![CDATA[ .b{stroke:#000} ]]></style>"),
    ],
    [
      "an XML declaration, a comment and an external DTD (Illustrator exports)",
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?><!-- Generator --><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg ${NS}/>`,
      ),
    ],
    [
      "Inkscape metadata in other namespaces",
      svg(
        '<sodipodi:namedview xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" id="n"/><metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""/></rdf:RDF></metadata>',
      ),
    ],
    ["an animation of a colour", svg('<rect><animate attributeName="fill" to="red" dur="1s"/></rect>')],
  ])("%s", (_, content) => {
    expect(activeSvgContent(content)).toBeUndefined();
  });
});

describe("SVG icons: active content is refused, naming what was found", () => {
  it.each([
    ["a script element", svg("<script>alert(1)</script>"), /<script>/],
    ["a script element in CDATA", svg("<script><![CDATA[alert(1)]]></script>"), /<script>/],
    ["an upper-case SCRIPT", svg("<SCRIPT>alert(1)</SCRIPT>"), /SCRIPT/],
    [
      "an XHTML script",
      svg('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>'),
      /script/,
    ],
    ["an onload attribute", svg("", ' onload="alert(1)"'), /onload/],
    ["an onclick on a shape", svg('<rect onClick="alert(1)"/>'), /onClick/],
    ["a javascript: link", svg('<a href="javascript:alert(1)"><rect/></a>'), /javascript/],
    [
      "an entity-encoded javascript: link",
      svg('<a href="&#106;avascript:alert(1)"><rect/></a>'),
      /javascript/,
    ],
    ["a javascript: xlink:href", svg('<a xlink:href=" javascript:alert(1)"><rect/></a>'), /xlink:href/],
    ["a data: image", svg('<image href="data:image/svg+xml;base64,PHN2Zy8+"/>'), /data:/],
    ["an external image", svg('<image xlink:href="https://evil.example/x.png"/>'), /https:/],
    ["an external use", svg('<use href="other.svg#a"/>'), /other\.svg/],
    [
      "a foreignObject",
      svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'),
      /foreignObject/,
    ],
    [
      "an iframe in XHTML",
      svg('<x:iframe xmlns:x="http://www.w3.org/1999/xhtml" src="https://e.example"/>'),
      /iframe/,
    ],
    [
      "an href animated to javascript:",
      svg('<a><set attributeName="href" to="javascript:alert(1)"/></a>'),
      /animation of href/,
    ],
    [
      "an xlink:href animated",
      svg('<a><animate attributeName="xlink:href" values="javascript:alert(1)"/></a>'),
      /animation/,
    ],
    ["a CSS @import", svg('<style>@import "https://evil.example/x.css";</style>'), /@import/],
    ["an external CSS url()", svg("<style>rect { fill: url(https://evil.example/p#x) }</style>"), /url\(/],
    [
      "an external url() in a style attribute",
      svg('<rect style="background:url(//evil.example/x)"/>'),
      /url\(/,
    ],
    [
      "an external url() in a presentation attribute",
      svg('<rect filter="url(https://evil.example/f.svg#f)"/>'),
      /url\(/,
    ],
    ["a CSS escape spelling url", svg('<rect style="fill: \\75rl(https://evil.example/x)"/>'), /escape/],
    [
      "an xml-stylesheet instruction",
      Buffer.from(`<?xml-stylesheet href="https://evil.example/x.css"?><svg ${NS}/>`),
      /xml-stylesheet/,
    ],
    [
      "entities defined in an internal subset",
      Buffer.from(`<!DOCTYPE svg [<!ENTITY x "<script>alert(1)</script>">]><svg ${NS}>&x;</svg>`),
      /internal subset/,
    ],
    ["an undefined entity", svg("&x;"), /not well-formed/],
    ["markup that is not well-formed", svg("<g>"), /not well-formed/],
    ["an unbound prefix", svg('<a xl:href="#a"/>'), /not well-formed/],
    [
      "another encoding",
      Buffer.from(`<?xml version="1.0" encoding="ISO-2022-JP"?><svg ${NS}/>`),
      /ISO-2022-JP/,
    ],
    [
      "bytes that are not UTF-8",
      Buffer.concat([svg("<text>"), Buffer.from([0xff, 0xfe]), Buffer.from("</text>")]),
      /UTF-8/,
    ],
  ])("%s", (_, content, why) => {
    expect(activeSvgContent(content)).toMatch(why);
  });

  it("checkIcon refuses them with a 400 ICON_ACTIVE_CONTENT naming the content field", () => {
    const file = { name: "x.svg", content: svg("<script>alert(1)</script>").toString("base64") };
    expect(() => checkIcon(file, 1024, "/icon")).toThrow(
      expect.objectContaining({ kind: "invalid", code: "ICON_ACTIVE_CONTENT", field: "/icon/content" }),
    );
    expect(checkIcon({ name: "ok.svg", content: svg("<rect/>").toString("base64") }, 1024).mediaType).toBe(
      "image/svg+xml",
    );
  });
});
