/**
 * Read models a service sends as UTF-8 JSON (the picking documents, see picking.proto): the gateway
 * answers with those bytes as they are, never parsing and serializing them again.
 */
import type { FastifyReply } from "fastify";

const JSON_TYPE = "application/json; charset=utf-8";
const COMMA = Buffer.from(",");
const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Sends one JSON document as the response body (status and headers as already set on `reply`). */
export function sendDocument(reply: FastifyReply, json: Uint8Array | undefined): FastifyReply {
  // A reply without its document is the service's fault, answered as a (generic) 500.
  if (!json?.byteLength) throw new Error("the service answered without the document");
  return reply.type(JSON_TYPE).send(buffer(json));
}

/**
 * Sends `{"<key>": [doc, ...], ...fields}`: a page of JSON documents plus plain fields (page info,
 * total), as one body.
 */
export function sendDocumentPage(
  reply: FastifyReply,
  key: string,
  docs: Uint8Array[],
  fields: Record<string, unknown>,
): FastifyReply {
  const parts: Buffer[] = [Buffer.from(`{${JSON.stringify(key)}:[`)];
  docs.forEach((doc, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(buffer(doc));
  });
  const rest = JSON.stringify(fields);
  parts.push(Buffer.from(rest === "{}" ? "]}" : `],${rest.slice(1)}`));
  return reply.type(JSON_TYPE).send(Buffer.concat(parts));
}
