/**
 * GraphQL errors in our conventions: every entry of `errors` has `extensions.code`, the same stable
 * code REST puts in its error body (CATEGORY_NOT_FOUND, VERSION_CONFLICT, PERMISSION_DENIED, ...),
 * plus `extensions.status` (the HTTP status REST answers with), `extensions.kind` and, for version
 * conflicts, `requestVersion` and `version`. Errors that are bugs are logged and answered as a
 * generic INTERNAL; never a stack trace.
 *
 * HTTP status (GraphQL over HTTP, application/json): 200 whenever execution produced `data` (partial
 * failures are entries of `errors`); a request that could not run at all answers with the status of
 * its error (401 without a token, 400 for a document that does not parse or validate, or that is
 * over a limit).
 */
import type { AppError } from "@fop/kit/errors";

import { appErrorOf, statusOf, timeoutOf } from "../plugins/errors.ts";
import { gql } from "./graphql-js.ts";

const { GraphQLError } = gql;

interface Log {
  error(obj: object, msg: string): void;
}

/** Codes of the errors GraphQL itself raises before execution. */
const MERCURIUS_CODES: Record<string, { code: string; status: number }> = {
  MER_ERR_GQL_VALIDATION: { code: "GRAPHQL_VALIDATION_FAILED", status: 400 },
  MER_ERR_GQL_PERSISTED_QUERY_NOT_FOUND: { code: "PERSISTED_QUERY_NOT_FOUND", status: 400 },
  MER_ERR_GQL_PERSISTED_QUERY_NOT_SUPPORTED: { code: "PERSISTED_QUERY_NOT_SUPPORTED", status: 400 },
  MER_ERR_GQL_PERSISTED_QUERY_MISMATCH: { code: "PERSISTED_QUERY_MISMATCH", status: 400 },
  MER_ERR_METHOD_NOT_ALLOWED: { code: "METHOD_NOT_ALLOWED", status: 405 },
  MER_ERR_GQL_INVALID_SCHEMA: { code: "GRAPHQL_VALIDATION_FAILED", status: 400 },
};

export interface Formatted {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions: Record<string, unknown>;
}

function fromAppError(
  err: AppError,
  base: InstanceType<typeof GraphQLError> | undefined,
  mutation: boolean,
): Formatted {
  const e = err.kind === "timeout" && mutation ? timeoutOf(err, "POST") : err;
  return {
    message: e.description || e.summary,
    ...(base?.locations ? { locations: base.locations } : {}),
    ...(base?.path ? { path: base.path } : {}),
    extensions: {
      code: e.code,
      kind: e.kind.toUpperCase(),
      status: statusOf[e.kind],
      summary: e.summary,
      ...(e.field ? { field: e.field } : {}),
      ...(e.requestVersion !== undefined ? { requestVersion: e.requestVersion } : {}),
      ...(e.version !== undefined ? { version: e.version } : {}),
    },
  };
}

/** One error of a response (or of a request that could not run) in our shape. */
export function formatError(error: unknown, log: Log, mutation = false): Formatted[] {
  const gql = error instanceof GraphQLError ? error : undefined;
  const original = gql ? gql.originalError : error;
  // Errors that carry several (mercurius' validation error, which also wraps syntax errors): each
  // one on its own, by its own code.
  const nested = (original as { errors?: unknown[] } | undefined)?.errors;
  const outer = MERCURIUS_CODES[(original as { code?: string } | undefined)?.code ?? ""];
  if (Array.isArray(nested) && nested.length > 0 && outer) {
    return nested.flatMap((n) =>
      n instanceof GraphQLError
        ? formatError(n, log, mutation)
        : [
            {
              message: String((n as Error).message ?? n),
              extensions: { code: outer.code, kind: "INVALID", status: outer.status },
            },
          ],
    );
  }
  // Variable coercion: graphql-js wraps its own error in another.
  if (gql && original instanceof GraphQLError && original !== gql)
    return formatError(original, log, mutation);
  const merCode = (original as { code?: string } | undefined)?.code;
  const mer = merCode ? MERCURIUS_CODES[merCode] : undefined;
  if (mer) {
    return [
      {
        message: (original as Error).message,
        extensions: { code: mer.code, kind: "INVALID", status: mer.status },
      },
    ];
  }
  if (gql && (!original || original === gql)) {
    // A GraphQL error of its own: syntax, validation, variable coercion.
    const syntax = gql.message.startsWith("Syntax Error");
    return [
      {
        message: gql.message,
        ...(gql.locations ? { locations: gql.locations } : {}),
        ...(gql.path ? { path: gql.path } : {}),
        extensions: {
          ...(gql.extensions ?? {}),
          code:
            (gql.extensions?.code as string | undefined) ??
            (syntax ? "GRAPHQL_PARSE_FAILED" : "GRAPHQL_VALIDATION_FAILED"),
          kind: "INVALID",
          status: 400,
        },
      },
    ];
  }
  const app = appErrorOf(original);
  if (app) {
    if (app.kind === "internal") log.error({ err: original }, "internal error");
    return [fromAppError(app, gql, mutation)];
  }
  log.error({ err: original ?? error }, "unhandled error");
  return [
    {
      message: "An internal error occurred.",
      ...(gql?.path ? { path: gql.path } : {}),
      extensions: { code: "INTERNAL", kind: "INTERNAL", status: 500 },
    },
  ];
}

export interface ExecutionLike {
  data?: unknown;
  errors?: readonly unknown[];
}

/** mercurius' errorFormatter: our error entries and the HTTP status (see the module comment). */
export function formatExecution(execution: ExecutionLike, log: Log, mutation = false) {
  const errors = (execution.errors ?? []).flatMap((e) => formatError(e, log, mutation));
  const hasData = execution.data !== undefined && execution.data !== null;
  const statuses = errors.map((e) => Number(e.extensions.status));
  const statusCode =
    hasData || statuses.length === 0 ? 200 : statuses.every((s) => s === statuses[0]) ? statuses[0]! : 400;
  return { statusCode, response: { data: hasData ? execution.data : null, errors } };
}
