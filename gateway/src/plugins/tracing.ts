/**
 * A server span per request, child of the caller's traceparent, active for every hook and the
 * handler (so RPC client spans and the services' spans join it). Every response carries the W3C
 * `traceresponse` header with the trace id (none with tracing off: OTEL_SDK_DISABLED=true).
 */
import {
  extractTraceContext,
  otelContext,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  traceResponseHeader,
  tracer,
} from "@fop/kit/otel";
import type { Span } from "@opentelemetry/api";
import type { FastifyInstance } from "fastify";

const SPAN = Symbol("span");
type WithSpan = { [SPAN]?: Span };

/** The request's server span (undefined before the tracing hook ran). */
export const requestSpan = (req: object): Span | undefined => (req as WithSpan)[SPAN];

export function installTracing(app: FastifyInstance): void {
  app.addHook("onRequest", (req, reply, done) => {
    const parent = extractTraceContext(req.headers);
    const route = req.routeOptions.url ?? "unmatched";
    const span = tracer().startSpan(
      `${req.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.request.method": req.method,
          "http.route": route,
          "url.path": req.url.split("?")[0]!,
        },
      },
      parent,
    );
    (req as WithSpan)[SPAN] = span;
    const ctx = otelTrace.setSpan(parent, span);
    const traceresponse = traceResponseHeader(ctx);
    if (traceresponse) reply.header("traceresponse", traceresponse);
    otelContext.with(ctx, done);
  });
  app.addHook("onResponse", (req, reply, done) => {
    const span = (req as WithSpan)[SPAN];
    if (span) {
      span.setAttribute("http.response.status_code", reply.statusCode);
      if (req.ctx) span.setAttribute("fop.tenant", req.ctx.tenant);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
