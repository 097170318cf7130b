/**
 * Load shedding: this gateway replica works on at most `maxInFlight` API requests (/api, /graphql)
 * at once; one more is answered 503 SERVICE_OVERLOADED with `Retry-After: 1` at once, before any of
 * its work (token check, body, service calls), and counted in fop_gateway_shed_requests_total.
 *
 * Why: under more load than the services can carry, requests otherwise pile up in the gateway
 * without bound, each waiting on calls behind all the others; their answers come later and later
 * until clients give up without one (the chaos run at 200 requests/s on a machine that carries ~115
 * left thousands unanswered after 15 s, none of them refused). With a bound, what is admitted is
 * answered within (in flight / throughput) and the rest learn at once that they should back off and
 * retry, as the platform's clients do on 503. Probes, metrics and docs are never shed; neither is a
 * long-lived stream (the notifications SSE), which would otherwise hold a slot for its whole life.
 */
import { AppError } from "@fop/kit/errors";
import { counter, METRICS, type Metrics } from "@fop/kit/metrics";
import type { FastifyInstance } from "fastify";

export interface AdmissionOptions {
  /** Requests of the API this replica works on at once (0: no bound). */
  maxInFlight: number;
}

/** Whether a request counts: the API, except streams that stay open (route config `stream: true`). */
const counts = (url: string, stream: boolean | undefined) =>
  !stream && (url.startsWith("/api/") || url.startsWith("/graphql"));

export function installAdmission(
  app: FastifyInstance,
  opts: AdmissionOptions,
  deps: { metrics: Metrics },
): void {
  const shed = counter(deps.metrics, METRICS.gatewayShed);
  if (opts.maxInFlight <= 0) return;
  let inFlight = 0;
  // First among the hooks that do work: a shed request costs no token check and no body.
  app.addHook("onRequest", (req, reply, done) => {
    if (!counts(req.url, req.routeOptions.config?.stream)) return done();
    if (inFlight >= opts.maxInFlight) {
      shed.inc();
      // (errors.ts adds Retry-After: 1 to every 503.)
      return done(
        new AppError("unavailable", {
          code: "SERVICE_OVERLOADED",
          description: `This gateway replica is working on ${opts.maxInFlight} requests already; retry with exponential backoff.`,
        }),
      );
    }
    inFlight++;
    // 'close' comes once per response, sent or abandoned (the client went away).
    reply.raw.once("close", () => inFlight--);
    done();
  });
}
