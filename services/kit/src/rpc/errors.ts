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
  not_implemented: Code.Unimplemented,
  internal: Code.Internal,
};

const codeToKind = new Map<Code, ErrorKind>(
  Object.entries(kindToCode).map(([kind, code]) => [code, kind as ErrorKind]),
);

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
        requestVersion: err.requestVersion === undefined ? undefined : BigInt(err.requestVersion),
        version: err.version === undefined ? undefined : BigInt(err.version),
      },
    },
  ]);
}

/**
 * ConnectError (as a client sees it) -> AppError, restoring the ErrorDetail when the peer sent one.
 * Transport failures become `unavailable`; anything without detail keeps a generic message.
 */
export function fromConnectError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const ce = ConnectError.from(err);
  const detail: ErrorDetail | undefined = ce.findDetails(ErrorDetailSchema)[0];
  const kind =
    codeToKind.get(ce.code) ??
    (ce.code === Code.DeadlineExceeded || ce.code === Code.Canceled ? "unavailable" : "internal");
  if (!detail) {
    return new AppError(kind, {
      code: kind === "unavailable" ? "SERVICE_UNAVAILABLE" : "INTERNAL",
      description: kind === "internal" ? "An internal error occurred." : ce.rawMessage,
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
