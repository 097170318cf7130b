/**
 * RED metrics of the gateway: one sample per response in http_server_request_duration_seconds
 * (kit/metrics.ts), labelled with the route template (`/api/facilities/:facilityId`, never the raw
 * path; `unmatched` for a request no route took), the method (an unknown one as `_OTHER`, as
 * OpenTelemetry says: the label set stays bounded whatever clients send), the status and, on
 * /graphql only, the operation type (query, mutation, subscription; never the operation name, which
 * clients choose freely). A streamed response (the notifications SSE stream) is observed when it ends.
 */
import { counter, histogram, METRICS, type Metrics } from "@fop/kit/metrics";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { gql } from "../graphql/graphql-js.ts";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]);

export function installMetrics(app: FastifyInstance, metrics: Metrics): void {
  const duration = histogram(metrics, METRICS.httpServerDuration);
  // The rate limit's fail-open counter (plugins/rate-limit.ts), there from the start: 0, not absent,
  // until it counts (also with the rate limit off).
  counter(metrics, METRICS.rateLimitUnsynced);
  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    const labels: Partial<Record<(typeof METRICS.httpServerDuration.labelNames)[number], string>> = {
      http_request_method: METHODS.has(req.method) ? req.method : "_OTHER",
      http_route: route,
      http_response_status_code: String(reply.statusCode),
    };
    if (route === "/graphql") {
      const type = graphqlOperationTypeOf(req);
      if (type) labels.graphql_operation_type = type;
    }
    duration.observe(labels, reply.elapsedTime / 1000);
  });
}

/** The type of the operation a /graphql request runs (GET: query string; POST: JSON body or application/graphql). */
function graphqlOperationTypeOf(req: FastifyRequest): string | undefined {
  const params = (req.method === "GET" ? req.query : req.body) as unknown;
  if (typeof params === "string") return graphqlOperationType(params);
  if (!params || typeof params !== "object") return undefined;
  const { query, operationName } = params as { query?: unknown; operationName?: unknown };
  if (typeof query !== "string") return undefined; // e.g. a persisted query sent by its hash only
  return graphqlOperationType(query, typeof operationName === "string" ? operationName : undefined);
}

/**
 * The type of the operation `source` runs: the one named `operationName`, else its only one;
 * undefined when that is not clear (several operations and no name, a document that does not lex).
 * Reads top-level tokens only (graphql-js's lexer, so strings, block strings and comments are
 * skipped correctly), without building the document: a `{` at the top that no keyword introduced
 * is an anonymous query; `fragment` definitions are no operations.
 */
export function graphqlOperationType(source: string, operationName?: string): string | undefined {
  const ops: { type: string; name?: string }[] = [];
  const { Lexer, Source, TokenKind } = gql;
  let lexer: InstanceType<typeof Lexer>;
  try {
    lexer = new Lexer(new Source(source));
  } catch {
    return undefined;
  }
  let braces = 0;
  let parens = 0;
  /** A definition's keyword was read; its selection set has not begun. */
  let inHeader = false;
  /** The token after an operation keyword: its name, if it is a name. */
  let nameNext = false;
  try {
    for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
      const top = braces === 0 && parens === 0;
      const wasNameNext = nameNext;
      nameNext = false;
      switch (t.kind) {
        case TokenKind.BRACE_L:
          if (top && !inHeader) ops.push({ type: "query" });
          if (top) inHeader = false;
          braces++;
          break;
        case TokenKind.BRACE_R:
          braces--;
          break;
        case TokenKind.PAREN_L:
          parens++;
          break;
        case TokenKind.PAREN_R:
          parens--;
          break;
        case TokenKind.NAME:
          if (!top) break;
          if (wasNameNext) ops[ops.length - 1]!.name = t.value;
          else if (
            !inHeader &&
            (t.value === "query" || t.value === "mutation" || t.value === "subscription")
          ) {
            ops.push({ type: t.value });
            inHeader = true;
            nameNext = true;
          } else if (!inHeader && t.value === "fragment") inHeader = true;
          break;
      }
    }
  } catch {
    return undefined; // does not lex: mercurius answers it as a syntax error
  }
  if (operationName) return ops.find((o) => o.name === operationName)?.type;
  return ops.length === 1 ? ops[0]!.type : undefined;
}
