/**
 * A service's admin listener: /healthz, /readyz, /metrics and the dead letters of its event
 * consumers on a plain HTTP/1.1 port (what Kubernetes httpGet probes speak), beside the RPC
 * listener of rpc/server.ts.
 */
import { timingSafeEqual } from "node:crypto";
import { type FastifyInstance, type FastifyReply, type FastifyRequest, fastify } from "fastify";
import { type EventConsumer, REPLAY_LIMIT } from "./events/consumer.ts";
import type { ServiceRuntime } from "./rpc/server.ts";

/** Whether a socket's peer is this host (IPv4, IPv6 or IPv4-mapped loopback). */
export const isLoopback = (address: string | undefined): boolean =>
  !!address && (address === "::1" || /^(::ffff:)?127\./.test(address));

/** The body of POST /dead-letters/replay. */
export interface ReplayRequest {
  consumer: string;
  /** Dead letter ids (`id` in GET /dead-letters); without, the consumer's oldest REPLAY_LIMIT. */
  ids?: string[];
}

/** `body` (the raw text) as a {@link ReplayRequest}, or what is wrong with it. */
export function parseReplayRequest(body: unknown): ReplayRequest | string {
  let value: unknown;
  try {
    value = typeof body === "string" && body.trim() ? JSON.parse(body) : undefined;
  } catch {
    return "The body is not JSON.";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "The body is not a JSON object.";
  // A misspelt field must not turn "these ids" into "all of them".
  const unknown = Object.keys(value).filter((k) => k !== "consumer" && k !== "ids");
  if (unknown.length) return `Unknown fields: ${unknown.join(", ")}.`;
  const { consumer, ids } = value as { consumer?: unknown; ids?: unknown };
  if (typeof consumer !== "string" || !consumer) return "consumer must be a consumer's name.";
  if (ids === undefined) return { consumer };
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === "string" && id))
    return "ids, when given, must be a non-empty list of dead letter ids (leave it out to replay all).";
  if (ids.length > REPLAY_LIMIT) return `ids names at most ${REPLAY_LIMIT} dead letters per call.`;
  return { consumer, ids };
}

/** An event consumer as the admin server sees it. */
export type DeadLetterReplayer = Pick<EventConsumer, "name" | "replayDeadLetters">;

const problem = (summary: string, description: string, code: string) => [{ summary, description, code }];

/**
 * Builds the HTTP/1.1 admin server: /healthz (process up), /readyz (dependencies up), /metrics and,
 * when given, GET /dead-letters (events the service's consumers gave up on, newest first) and, with
 * `consumers`, POST /dead-letters/replay (re-applies a consumer's dead letters, see
 * {@link ReplayRequest}; answers the consumer's ReplayReport). Probes and metrics are open (the kubelet
 * and Prometheus call them); dead letters carry event payloads and a replay changes data, so both
 * are served only to a caller sending `Authorization: Bearer <adminToken>`. Without `adminToken`
 * they are refused to everyone (fail closed: behind a sidecar proxy every caller is loopback),
 * unless `loopbackTrust` is set, which only a developer's machine does (`npm start`, the tests):
 * then a caller on this host is trusted.
 */
export function buildAdminServer(
  rt: Pick<ServiceRuntime, "ready" | "metrics">,
  deadLetters?: () => Promise<unknown[]>,
  opts: {
    adminToken?: string | undefined;
    loopbackTrust?: boolean;
    consumers?: readonly DeadLetterReplayer[];
  } = {},
): FastifyInstance {
  const app = fastify({ logger: false });
  // Errors in the platform's shape too; a failure during a replay (Postgres gone) leaves the row
  // being replayed as it was, so the call can simply be repeated.
  app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    return reply
      .code(status)
      .send(
        status === 500
          ? problem("Internal error.", "The call failed; what it did so far is kept. Repeat it.", "INTERNAL")
          : problem("Malformed request.", err.message ?? "", "INVALID_REQUEST"),
      );
  });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const ok = await rt.ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ready" : "not ready" });
  });
  app.get("/metrics", async (_req, reply) =>
    reply.type(rt.metrics.registry.contentType).send(await rt.metrics.registry.metrics()),
  );
  const expected = opts.adminToken ? Buffer.from(`Bearer ${opts.adminToken}`) : undefined;
  const refusal = expected
    ? "Send Authorization: Bearer <ADMIN_TOKEN>."
    : opts.loopbackTrust
      ? "They are served on the service's own host only (ADMIN_LOOPBACK_TRUST), or with ADMIN_TOKEN set."
      : "ADMIN_TOKEN must be set for them to be served (then send Authorization: Bearer <ADMIN_TOKEN>); without it they are refused to every caller.";
  /** Refuses (403) a caller that may not see dead letters; runs before the body is read. */
  const adminOnly = async (req: FastifyRequest, reply: FastifyReply) => {
    const sent = Buffer.from(req.headers.authorization ?? "");
    const allowed = expected
      ? sent.length === expected.length && timingSafeEqual(sent, expected)
      : opts.loopbackTrust === true && isLoopback(req.socket.remoteAddress);
    if (allowed) return;
    return reply
      .code(403)
      .send(problem("Dead letters are not served to this caller.", refusal, "ADMIN_ONLY"));
  };
  if (deadLetters) {
    app.get("/dead-letters", { onRequest: adminOnly }, async () => ({ deadLetters: await deadLetters() }));
  }
  const consumers = opts.consumers;
  if (consumers) {
    app.register(async (scope) => {
      // Any content type (curl -d sends a form's): the body is read as text and must be JSON.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: 256 * 1024 }, (_req, body, done) =>
        done(null, body),
      );
      scope.post("/dead-letters/replay", { onRequest: adminOnly }, async (req, reply) => {
        const request = parseReplayRequest(req.body);
        if (typeof request === "string") {
          return reply
            .code(400)
            .send(
              problem(
                "Malformed request.",
                `${request} Send {"consumer": "<name>", "ids": ["<dead letter id>", ...]} (ids optional: all).`,
                "INVALID_REQUEST",
              ),
            );
        }
        const consumer = consumers.find((c) => c.name === request.consumer);
        if (!consumer) {
          const names = consumers.map((c) => c.name);
          return reply
            .code(404)
            .send(
              problem(
                "No such consumer.",
                `This service has no consumer "${request.consumer}"; ${names.length ? `its consumers: ${names.join(", ")}` : "it has none"}.`,
                "UNKNOWN_CONSUMER",
              ),
            );
        }
        return consumer.replayDeadLetters(request.ids);
      });
    });
  }
  return app;
}
