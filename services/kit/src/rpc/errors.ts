import { Code, ConnectError } from "@connectrpc/connect";
import { type ErrorDetail, ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { AppError, type ErrorKind } from "../errors.ts";

const kindToCode: Record<ErrorKind, Code> = {
  invalid: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  not_found: Code.NotFound,
  conflict: Code.AlreadyExists,
  version_conflict: Code.Aborted,
  precondition: Code.FailedPrecondition,
  rate_limited: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
  timeout: Code.DeadlineExceeded,
  too_large: Code.InvalidArgument,
  unsupported_media_type: Code.InvalidArgument,
  not_implemented: Code.Unimplemented,
  internal: Code.Internal,
};

/** The kind a Connect code means (the kinds that share a code with another travel as that one). */
const codeToKind = new Map<Code, ErrorKind>(
  Object.entries(kindToCode)
    .filter(([kind]) => kind !== "too_large" && kind !== "unsupported_media_type")
    .map(([kind, code]) => [code, kind as ErrorKind]),
);

/**
 * A version as the ErrorDetail's int64, or nothing when it is no whole number in range (a refusal
 * that could not be encoded would fail the call instead of answering it).
 */
const int64 = (n: number | undefined): bigint | undefined =>
  n !== undefined && Number.isSafeInteger(n) ? BigInt(n) : undefined;

/** AppError -> ConnectError carrying an ErrorDetail (the structured error the gateway renders). */
export function toConnectError(err: AppError): ConnectError {
  return new ConnectError(err.description || err.summary, kindToCode[err.kind], undefined, [
    {
      desc: ErrorDetailSchema,
      value: {
        code: err.code,
        summary: err.summary,
        description: err.description,
        field: err.field ?? "",
        requestVersion: int64(err.requestVersion),
        version: int64(err.version),
      },
    },
  ]);
}

/** What a call that failed without our ErrorDetail means, in our words (never the library's). */
const WITHOUT_DETAIL: Partial<Record<ErrorKind, { code: string; description: string }>> = {
  timeout: {
    code: "TIMEOUT",
    description: "The service did not answer within the deadline.",
  },
  unavailable: {
    code: "SERVICE_UNAVAILABLE",
    description: "The service cannot be reached at the moment; retry with exponential backoff.",
  },
  rate_limited: {
    code: "RATE_LIMITED",
    description: "The service is busy; retry with exponential backoff.",
  },
};

/**
 * ConnectError (as a client sees it) -> AppError, restoring the ErrorDetail when the peer sent one.
 * Without one (transport failures, the client's own deadline, a peer that is not ours) the kind
 * follows the code and the words are ours: a client-side deadline is `timeout`, a canceled call or
 * an unreachable service `unavailable`, anything else a generic `internal`. A service refusing the
 * caller's own token (RPC_TOKEN_*: this process's RPC_AUTH_KEY is not the cluster's) is `internal`
 * too: the end user's request is fine, the platform is misconfigured.
 */
export function fromConnectError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const ce = ConnectError.from(err);
  const detail: ErrorDetail | undefined = ce.findDetails(ErrorDetailSchema)[0];
  const kind = codeToKind.get(ce.code) ?? (ce.code === Code.Canceled ? "unavailable" : "internal");
  if (!detail) {
    const known = WITHOUT_DETAIL[kind];
    return known
      ? new AppError(kind, { ...known, cause: err })
      : new AppError("internal", {
          code: "INTERNAL",
          description: "An internal error occurred.",
          cause: err,
        });
  }
  if (detail.code.startsWith("RPC_TOKEN_")) {
    return new AppError("internal", {
      code: "INTERNAL",
      description: "An internal error occurred.",
      cause: err,
    });
  }
  return new AppError(kind, {
    code: detail.code,
    summary: detail.summary || undefined,
    description: detail.description,
    field: detail.field || undefined,
    requestVersion: detail.requestVersion === undefined ? undefined : Number(detail.requestVersion),
    version: detail.version === undefined ? undefined : Number(detail.version),
    cause: err,
  });
}

/** gRPC's canonical status code names, by code (Connect's codes are gRPC's). */
const GRPC_STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** The gRPC status code name of a call's outcome: `OK` without an error, else its code's (`NOT_FOUND`). */
export function grpcStatusName(err?: unknown): string {
  if (err === undefined) return "OK";
  return GRPC_STATUS_NAMES[ConnectError.from(err).code] ?? "UNKNOWN";
}

/**
 * The refusal of a request whose message cannot be decoded (bytes that are no such message, or a
 * body nested past the decoder's recursion limit): the caller's fault, INVALID_ARGUMENT with our
 * ErrorDetail naming the whole request ("/"), as nothing inside it could be read.
 */
export function undecodableRequest(why: string): AppError {
  return new AppError("invalid", {
    code: "MALFORMED_REQUEST",
    summary: "Invalid input.",
    description: `The request cannot be read: ${why.slice(0, 300)}`,
    field: "/",
  });
}
