import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocument, sendDocument, sendDocumentPage } from "./documents.ts";

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
// A view into a larger buffer, as protobuf decoding hands out bytes fields.
const slice = (v: unknown) => {
  const bytes = json(v);
  const big = new Uint8Array(bytes.length + 8);
  big.set(bytes, 4);
  return big.subarray(4, 4 + bytes.length);
};

const app = Fastify();
app.get("/one", (_req, reply) => sendDocument(reply.code(201), slice({ id: "a", n: "ü" })));
app.get("/none", (_req, reply) => sendDocument(reply, undefined));
app.get("/page", (_req, reply) =>
  sendDocumentPage(reply, "pickJobs", [slice({ id: "a" }), json({ id: "b" })], {
    pageInfo: { hasNextPage: false },
    total: 2,
  }),
);
app.get("/empty", (_req, reply) => sendDocumentPage(reply, "pickJobs", [], {}));
afterAll(() => app.close());

describe("documents sent as the service's JSON", () => {
  it("sends one document as it is, as JSON, with the status set before", async () => {
    const res = await app.inject("/one");
    expect(res.statusCode).toBe(201);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.json()).toEqual({ id: "a", n: "ü" });
  });

  it("answers 500 when the service sent no document", async () => {
    expect((await app.inject("/none")).statusCode).toBe(500);
  });

  it("builds a page from documents and plain fields", async () => {
    expect((await app.inject("/page")).json()).toEqual({
      pickJobs: [{ id: "a" }, { id: "b" }],
      pageInfo: { hasNextPage: false },
      total: 2,
    });
    expect((await app.inject("/empty")).json()).toEqual({ pickJobs: [] });
  });
});

describe("parseDocument", () => {
  it("parses the document's bytes, views included; a missing document is an error, not the client's JSON", () => {
    expect(parseDocument(slice({ documentHandling: { sendLabel: { enabled: false } } }))).toEqual({
      documentHandling: { sendLabel: { enabled: false } },
    });
    expect(() => parseDocument(undefined)).toThrow("without the document");
    expect(() => parseDocument(new Uint8Array())).toThrow("without the document");
  });
});
