/**
 * One error body for every 4xx/5xx: the platform's array of {summary, description, requestVersion?,
 * version?} plus our stable `code`. AppErrors (ours and those restored from services' Connect
 * errors) map by kind; fastify's own errors (validation, JSON parsing, body size) by their codes;
 * anything else is a logged, generic 500.
 */
import { ConnectError } from "@connectrpc/connect";
import { AppError, type ErrorKind } from "@fop/kit/errors";
import { fromConnectError } from "@fop/kit/rpc/errors";
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

export interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

export function describeValidation(context: string, e: AjvError): string {
  const where = `${context}${e.instancePath}`;
  if (e.keyword === "additionalProperties") {
    return `${where} must not have the property ${JSON.stringify(e.params.additionalProperty)}.`;
  }
  if (e.keyword === "required")
    return `${where} is missing the required property ${JSON.stringify(e.params.missingProperty)}.`;
  if (e.keyword === "enum")
    return `${where} must be one of ${(e.params.allowedValues as unknown[]).map(String).join(", ")}.`;
  return `${where} ${e.message ?? "is invalid"}.`;
}

/** fastify errors -> AppError (validation, malformed JSON, media type, size). */
function fromFastifyError(
  err: FastifyError & { validation?: AjvError[]; validationContext?: string },
): AppError | undefined {
  if (err.validation) {
    const first = err.validation[0];
    return new AppError("invalid", {
      code: "VALIDATION_FAILED",
      summary: "Invalid input.",
      description: first ? describeValidation(err.validationContext ?? "request", first) : err.message,
    });
  }
  switch (err.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new AppError("invalid", {
        code: "MALFORMED_JSON",
        summary: "Invalid input.",
        description: "The body is not valid JSON.",
      });
    default:
      break;
  }
  if (err instanceof SyntaxError) {
    return new AppError("invalid", {
      code: "MALFORMED_JSON",
      summary: "Invalid input.",
      description: "The body is not valid JSON.",
    });
  }
  return undefined;
}

export function sendError(reply: FastifyReply, status: number, body: ErrorItem[]): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, req, reply) => {
    let err: AppError | undefined;
    if (error instanceof AppError) err = error;
    else if (error instanceof ConnectError) err = fromConnectError(error);
    else err = fromFastifyError(error as FastifyError);
    if (err) {
      if (err.kind === "internal") req.log.error({ err: error }, "internal error");
      return sendError(reply, statusOf[err.kind], errorBody(err));
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return sendError(reply, status, [
        { summary: "The request is invalid.", description: (error as Error).message, code: "BAD_REQUEST" },
      ]);
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
