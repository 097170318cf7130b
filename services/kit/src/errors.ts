/**
 * One error type for the whole system. Domain code throws {@link AppError}s through the helpers
 * below; the kit's RPC interceptor maps each kind to a Connect code and the gateway maps Connect
 * codes to HTTP statuses and the platform's error body.
 */

export type ErrorKind =
  | "invalid" // 400: the request is malformed or violates a rule about its own content
  | "unauthenticated" // 401
  | "forbidden" // 403
  | "not_found" // 404
  | "conflict" // 409: clashes with existing state (duplicate identifier)
  | "version_conflict" // 409: optimistic locking
  | "precondition" // 422: well-formed but not allowed in the entity's current state
  | "rate_limited" // 429
  | "unavailable" // 503: not done (service down, or it refused work it could not finish in time); retry
  | "timeout" // 504: no answer in time; for a change, whether it was applied is unknown
  | "too_large" // 413
  | "unsupported_media_type" // 415
  | "not_implemented" // 501
  | "internal"; // 500

export interface AppErrorOptions {
  /** Stable machine-readable code, e.g. CATEGORY_NOT_FOUND. */
  code: string;
  /** Human-readable one-liner; defaults per kind. */
  summary?: string;
  /** Details: what was wrong and, for validation, where. */
  description?: string;
  /** The offending request field (JSON-pointer-like path). */
  field?: string;
  /** For version conflicts: the version the request named. */
  requestVersion?: number;
  /** For version conflicts: the entity's current version. */
  version?: number;
  cause?: unknown;
}

const defaultSummary: Record<ErrorKind, string> = {
  invalid: "The request is invalid.",
  unauthenticated: "Your user is not allowed to operate against this API instance.",
  forbidden: "Your user, although recognized, is not authorized to use this endpoint.",
  not_found: "The requested entity was not found.",
  conflict: "The request conflicts with the current state of the entity.",
  version_conflict: "The entity was changed in the meantime: the version does not match.",
  precondition: "The action is not possible in the entity's current state.",
  rate_limited: "Too many requests: back off and retry later.",
  unavailable: "The service is temporarily unavailable.",
  timeout: "The service did not answer in time.",
  too_large: "The request is too large.",
  unsupported_media_type: "Unsupported media type.",
  not_implemented: "This operation is not implemented.",
  internal: "An internal error occurred.",
};

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly summary: string;
  readonly description: string;
  readonly field: string | undefined;
  readonly requestVersion: number | undefined;
  readonly version: number | undefined;

  constructor(kind: ErrorKind, opts: AppErrorOptions) {
    super(opts.description ?? opts.summary ?? defaultSummary[kind], { cause: opts.cause });
    this.name = "AppError";
    this.kind = kind;
    this.code = opts.code;
    this.summary = opts.summary ?? defaultSummary[kind];
    this.description = opts.description ?? "";
    this.field = opts.field;
    this.requestVersion = opts.requestVersion;
    this.version = opts.version;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** 400: the request itself is wrong (names the field where possible). */
export const invalid = (code: string, description: string, field?: string) =>
  new AppError("invalid", { code, description, field, summary: "Invalid input." });

/** 404: no such entity for this tenant. */
export const notFound = (entity: string, id: string) =>
  new AppError("not_found", {
    code: `${entity.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_NOT_FOUND`,
    description: `No ${entity} with id ${JSON.stringify(id)} exists.`,
  });

/** 409: a unique identifier is already taken, or a similar clash. */
export const conflict = (code: string, description: string, field?: string) =>
  new AppError("conflict", { code, description, field });

/** 409 with requestVersion/version filled. */
export const versionConflict = (entity: string, requestVersion: number, version: number) =>
  new AppError("version_conflict", {
    code: "VERSION_CONFLICT",
    description: `The ${entity} is at version ${version}, the request was based on version ${requestVersion}.`,
    requestVersion,
    version,
  });

/** 422: not allowed in the current state (e.g. an invalid status transition). */
export const precondition = (code: string, description: string) =>
  new AppError("precondition", { code, description });

export const internal = (description = "An internal error occurred.", cause?: unknown) =>
  new AppError("internal", { code: "INTERNAL", description, cause });
