/**
 * What /graphql refuses before GraphQL runs, with REST's door rules where they apply:
 *
 * - bodies are JSON (`application/json`, checked by the gateway's strict parser: UTF-8, nesting,
 *   numbers, keys); `application/graphql` is a 415 (GraphQL over HTTP no longer defines it, and
 *   its text would bypass those checks);
 * - GET: `variables` must be a JSON object that passes REST's door (nesting, numbers, NUL, each key
 *   once) and `operationName`
 *   must name an operation of the document (an empty one, GET or POST, names none: as if absent);
 * - POST: a body without `query` (and no persisted query hash) is a 400, not "unknown persisted query";
 * - the document: brackets nested at most {@link MAX_SOURCE_NESTING} deep before it is parsed (a
 *   bracket bomb costs a scan, not a parser's stack), at most {@link MAX_TOKENS} tokens (so every
 *   check before the resolvers, graphql-js' validation included, works on a bounded document),
 *   input values nested at most as deep as a REST body ({@link JSON_LIMITS}); other methods are a 405.
 */
import { AppError, invalid } from "@fop/kit/errors";
import { JSON_LIMITS, parseJsonBody } from "@fop/kit/schemas/json-values";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { DocumentNode, ValueNode } from "graphql";
import { gql } from "./graphql-js.ts";

/** Brackets ({, [, () nested in a document's text: selections (15 deep at most) plus input values. */
export const MAX_SOURCE_NESTING = 64;

/**
 * Tokens in a document (names, punctuation, values; not comments or commas). The introspection
 * query has 184, the largest documents of our system tests about 420. graphql-js' validation is not
 * linear in every document (OverlappingFieldsCanBeMerged compares fields of one name pairwise and
 * expands fragments, within its own budget): the worst documents we found (fragment fan-outs with
 * a field per fragment, one field aliased over and over) take 15-25 ms of CPU at 2,000 tokens,
 * 3-7 ms at 1,000, 45 ms at 3,400 (measured on the shared 2-core test machine).
 */
export const MAX_TOKENS = 2000;

/** How many tokens `source` has, stopping past `max` (and at a syntax error: the parser reports it). */
export function tokenCount(source: string, max: number): number {
  const lexer = new gql.Lexer(new gql.Source(source));
  let n = 0;
  try {
    while (n <= max && lexer.advance().kind !== gql.TokenKind.EOF) n++;
  } catch {
    // a syntax error: the parser answers it
  }
  return n;
}

/** The deepest bracket nesting of a GraphQL document's text (strings and comments skipped), stopping past `max`. */
export function sourceNesting(source: string, max: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        // A block string ends at the first """ that is not escaped (\""").
        let end = source.indexOf('"""', i + 3);
        while (end > 0 && source[end - 1] === "\\") end = source.indexOf('"""', end + 3);
        i = end < 0 ? source.length : end + 2;
      } else {
        for (i++; i < source.length && source[i] !== '"' && source[i] !== "\n"; i++)
          if (source[i] === "\\") i++;
      }
    } else if (c === "{" || c === "[" || c === "(") {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > max) return deepest;
    } else if (c === "}" || c === "]" || c === ")") {
      depth--;
    }
  }
  return deepest;
}

/** The deepest nesting of the input values (objects, lists) written in `document`. */
export function literalNesting(document: DocumentNode): number {
  const depth = (v: ValueNode): number =>
    v.kind === gql.Kind.OBJECT
      ? 1 + Math.max(0, ...v.fields.map((f) => depth(f.value)))
      : v.kind === gql.Kind.LIST
        ? 1 + Math.max(0, ...v.values.map(depth))
        : 0;
  let deepest = 0;
  gql.visit(document, {
    Argument: (node) => {
      deepest = Math.max(deepest, depth(node.value));
      return false;
    },
  });
  return deepest;
}

/** Throws for a document whose text is nested too deeply or too long to parse and check safely. */
export function checkSource(source: string): void {
  if (sourceNesting(source, MAX_SOURCE_NESTING) > MAX_SOURCE_NESTING) {
    throw invalid(
      "QUERY_TOO_NESTED",
      `Brackets may be nested at most ${MAX_SOURCE_NESTING} levels deep in a query.`,
    );
  }
  if (tokenCount(source, MAX_TOKENS) > MAX_TOKENS) {
    throw invalid(
      "QUERY_TOO_LARGE",
      `A query may have at most ${MAX_TOKENS} tokens (names, punctuation, values): split it, or use fragments.`,
    );
  }
}

/**
 * Throws for a document that was not parsed from GraphQL text: mercurius takes a `query` that is
 * not GraphQL but JSON as a syntax tree, unchecked (no token bound, and a malformed tree fails
 * inside graphql-js' validation as an internal error). Only a parsed document has locations.
 */
export function checkParsed(document: DocumentNode): void {
  if (!document.loc) {
    throw invalid(
      "GRAPHQL_PARSE_FAILED",
      "The query is not a GraphQL document: send its text (a syntax tree in JSON is not taken).",
      "query",
    );
  }
}

/** Throws for input values written deeper than a REST body may be. */
export function checkLiterals(document: DocumentNode): void {
  if (literalNesting(document) > JSON_LIMITS.maxDepth) {
    throw invalid(
      "NESTING_TOO_DEEP",
      `Input objects and lists may be nested at most ${JSON_LIMITS.maxDepth} levels deep.`,
    );
  }
}

/** A GET /graphql querystring as fastify parses it (a value is a string or, repeated, an array). */
interface GetQuery {
  Querystring: { query?: unknown; variables?: unknown; operationName?: unknown };
}

function checkGet(req: FastifyRequest<GetQuery>): void {
  const q = req.query;
  // An empty operationName names none (mercurius would look an operation "" up and fail).
  if (q.operationName === "") q.operationName = undefined;
  if (typeof q.variables === "string" && q.variables !== "") {
    // The door REST bodies pass (nesting, numbers, NUL, keys once); mercurius parses it again.
    const value = parseJsonBody(Buffer.from(q.variables, "utf8"), "variables");
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw invalid("INVALID_VARIABLES", "variables must be a JSON object.", "variables");
    }
  }
  if (typeof q.query !== "string") return;
  checkSource(q.query);
  let document: DocumentNode;
  try {
    document = gql.parse(q.query, { maxTokens: MAX_TOKENS });
  } catch {
    return; // mercurius answers the syntax error
  }
  const name = typeof q.operationName === "string" && q.operationName !== "" ? q.operationName : undefined;
  if (!gql.getOperationAST(document, name)) {
    throw invalid(
      "OPERATION_NOT_FOUND",
      name
        ? `operationName ${JSON.stringify(name.slice(0, 100))} names no operation of the document.`
        : "The document has several operations (or none): name the one to run in operationName.",
      "operationName",
    );
  }
}

function checkPost(req: FastifyRequest): void {
  const body = req.body as
    | { query?: unknown; operationName?: unknown; extensions?: { persistedQuery?: unknown } }
    | undefined;
  if (body && typeof body === "object" && body.operationName === "") body.operationName = undefined;
  if (
    body &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    body.query === undefined &&
    !body.extensions?.persistedQuery
  ) {
    throw invalid("MISSING_QUERY", "Send the GraphQL document in `query`.", "query");
  }
}

/** The guards, for the scope /graphql is registered in. */
export function installRequestGuards(scope: FastifyInstance): void {
  scope.addHook("onRequest", async (req) => {
    if (req.routeOptions.url !== "/graphql") return;
    const type = String(req.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (type === "application/graphql") {
      throw new AppError("unsupported_media_type", {
        code: "UNSUPPORTED_MEDIA_TYPE",
        description: "Send GraphQL requests as application/json ({query, variables, operationName}).",
      });
    }
  });
  scope.addHook<GetQuery>("preHandler", async (req) => {
    if (req.routeOptions.url !== "/graphql") return;
    if (req.method === "GET") checkGet(req);
    else if (req.method === "POST") checkPost(req);
  });
  scope.route({
    method: ["PUT", "PATCH", "DELETE"],
    url: "/graphql",
    config: { auth: false },
    handler: async (_req, reply) =>
      reply
        .code(405)
        .header("allow", "GET, POST")
        .send({
          data: null,
          errors: [
            {
              message: "/graphql takes GET (queries) and POST.",
              extensions: { code: "METHOD_NOT_ALLOWED", kind: "INVALID", status: 405 },
            },
          ],
        }),
  });
}
