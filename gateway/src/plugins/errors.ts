/**
 * One error body for every 4xx/5xx: the platform's array of {summary, description, requestVersion?,
 * version?} plus our stable `code`. AppErrors (ours and those restored from services' Connect
 * errors) map by kind; fastify's own errors (validation, body size, media type) by their codes, in
 * our words; anything else is a logged, generic 500. Every 503 and 429 says when to retry
 * (`Retry-After`), and a change whose outcome is unknown (no answer in time) is a 504
 * `OUTCOME_UNKNOWN`, never a 503 that might have been applied after all.
 */
import { ConnectError } from "@connectrpc/connect";
import { AppError, type ErrorKind, invalid } from "@fop/kit/errors";
import { fromConnectError } from "@fop/kit/rpc/errors";
import { type AjvError, describeValidation } from "@fop/kit/schemas/describe";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";

export const statusOf: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  version_conflict: 409,
  precondition: 422,
  rate_limited: 429,
  unavailable: 503,
  timeout: 504,
  too_large: 413,
  unsupported_media_type: 415,
  not_implemented: 501,
  internal: 500,
};

export interface ErrorItem {
  summary: string;
  description?: string;
  requestVersion?: number;
  version?: number;
  code: string;
}

export function errorBody(err: AppError): ErrorItem[] {
  const item: ErrorItem = { summary: err.summary, code: err.code };
  if (err.description) item.description = err.description;
  if (err.requestVersion !== undefined) item.requestVersion = err.requestVersion;
  if (err.version !== undefined) item.version = err.version;
  return [item];
}

/** fastify's own 4xx errors, in our words. */
const FASTIFY_ERRORS: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new AppError("too_large", { code: "BODY_TOO_LARGE", description: "The body may be at most 1 MiB." }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new AppError("unsupported_media_type", {
      code: "UNSUPPORTED_MEDIA_TYPE",
      description: "Bodies must be JSON (Content-Type: application/json).",
    }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    invalid("INVALID_CONTENT_LENGTH", "The body's length does not match its Content-Length."),
};

/** fastify errors -> AppError (validation and the known request errors; else a generic 4xx). */
function fromFastifyError(
  err: FastifyError & { validation?: AjvError[]; validationContext?: string },
): AppError | undefined {
  if (err.validation) {
    const first = err.validation[0];
    return new AppError("invalid", {
      code: "VALIDATION_FAILED",
      summary: "Invalid input.",
      description: first
        ? describeValidation(err.validationContext ?? "request", first)
        : "The request is invalid.",
    });
  }
  const known = Object.hasOwn(FASTIFY_ERRORS, err.code) ? FASTIFY_ERRORS[err.code] : undefined;
  if (known) return known();
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return invalid("BAD_REQUEST", "The request could not be read.");
  }
  return undefined;
}

/**
 * Any error as an AppError: ours, a service's (restored from its Connect error) or fastify's own 4xx;
 * undefined for anything else (a bug: the caller logs it and answers a generic 500).
 */
export function appErrorOf(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ConnectError) return fromConnectError(error);
  if (!error || typeof error !== "object") return undefined;
  return fromFastifyError(error as FastifyError);
}

/** A 504 on a change: it may or may not have been applied (the service did not answer in time). */
export function timeoutOf(err: AppError, method: string): AppError {
  if (method === "GET" || method === "HEAD") return err;
  return new AppError("timeout", {
    code: "OUTCOME_UNKNOWN",
    summary: "The service did not answer in time: the change may or may not have been applied.",
    description:
      "Read the entity before retrying: a retry of a change that was applied fails with 409 (version or identifier taken).",
    cause: err,
  });
}

/** Seconds a client should wait before retrying a 503 or 429 that names no other time. */
export const DEFAULT_RETRY_AFTER_S = 1;

export function sendError(reply: FastifyReply, status: number, body: ErrorItem[]): FastifyReply {
  if ((status === 503 || status === 429) && !reply.hasHeader("retry-after")) {
    reply.header("retry-after", String(DEFAULT_RETRY_AFTER_S));
  }
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, req, reply) => {
    let err = appErrorOf(error);
    if (err) {
      if (err.kind === "internal") req.log.error({ err: error }, "internal error");
      if (err.kind === "timeout") err = timeoutOf(err, req.method);
      return sendError(reply, statusOf[err.kind], errorBody(err));
    }
    req.log.error({ err: error }, "unhandled error");
    return sendError(reply, 500, [{ summary: "An internal error occurred.", code: "INTERNAL" }]);
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, 404, [
      {
        summary: "The requested entity was not found.",
        description: `No route ${req.method} ${req.url.split("?")[0]}.`,
        code: "ROUTE_NOT_FOUND",
      },
    ]),
  );
}
