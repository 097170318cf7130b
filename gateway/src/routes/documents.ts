/**
 * Read models a service sends as UTF-8 JSON (the picking documents, see picking.proto): the gateway
 * answers with those bytes as they are, never parsing and serializing them again.
 */
import type { FastifyReply } from "fastify";

const JSON_TYPE = "application/json; charset=utf-8";
const COMMA = Buffer.from(",");
const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** The document's bytes; a reply without its document is the service's fault, a (generic) 500. */
function present(json: Uint8Array | undefined): Uint8Array {
  if (!json?.byteLength) throw new Error("the service answered without the document");
  return json;
}

/** Sends one JSON document as the response body (status and headers as already set on `reply`). */
export function sendDocument(reply: FastifyReply, json: Uint8Array | undefined): FastifyReply {
  return reply.type(JSON_TYPE).send(buffer(present(json)));
}

/** 201 Created: `Location: <collection>/<id>` and the created entity's document. */
export function sendCreated(
  reply: FastifyReply,
  collection: string,
  entity: { id: string; documentJson: Uint8Array } | undefined,
): FastifyReply {
  reply.code(201).header("location", `${collection}/${entity?.id}`);
  return sendDocument(reply, entity?.documentJson);
}

/** The document parsed, for the rare route that answers with a part of it. */
export const parseDocument = <T>(json: Uint8Array | undefined): T =>
  JSON.parse(buffer(present(json)).toString("utf8")) as T;

/** Sends `[doc, ...]`: a list of JSON documents as one body. */
export function sendDocumentArray(reply: FastifyReply, docs: (Uint8Array | undefined)[]): FastifyReply {
  const parts: Buffer[] = [Buffer.from("[")];
  docs.forEach((doc, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(buffer(present(doc)));
  });
  parts.push(Buffer.from("]"));
  return reply.type(JSON_TYPE).send(Buffer.concat(parts));
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
