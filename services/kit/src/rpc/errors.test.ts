import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { AppError, type ErrorKind, invalid, versionConflict } from "../errors.ts";
import { fromConnectError, toConnectError } from "./errors.ts";

describe("AppError <-> ConnectError", () => {
  it.each<[ErrorKind, Code]>([
    ["invalid", Code.InvalidArgument],
    ["not_found", Code.NotFound],
    ["conflict", Code.AlreadyExists],
    ["version_conflict", Code.Aborted],
    ["precondition", Code.FailedPrecondition],
    ["forbidden", Code.PermissionDenied],
  ])("%s travels as %s and comes back intact", (kind, code) => {
    const original = new AppError(kind, { code: "X_Y", description: "why", requestVersion: 3, version: 4 });
    const ce = toConnectError(original);
    expect(ce.code).toBe(code);
    const back = fromConnectError(ConnectError.from(ce));
    expect(back).toMatchObject({ kind, code: "X_Y", description: "why", requestVersion: 3, version: 4 });
  });

  it("keeps version numbers of a conflict", () => {
    expect(fromConnectError(toConnectError(versionConflict("category", 1, 2)))).toMatchObject({
      requestVersion: 1,
      version: 2,
    });
  });

  it("keeps the field of a validation error", () => {
    expect(fromConnectError(toConnectError(invalid("BAD", "no", "/a/b")))).toMatchObject({ field: "/a/b" });
  });

  it("hides details of errors without an ErrorDetail", () => {
    expect(fromConnectError(new ConnectError("secret stack", Code.Internal))).toMatchObject({
      kind: "internal",
      description: "An internal error occurred.",
    });
    expect(fromConnectError(new ConnectError("connect ECONNREFUSED", Code.Unavailable))).toMatchObject({
      kind: "unavailable",
    });
  });

  it("a service refusing this process's own token is an internal error, not the end user's 401", () => {
    const refused = toConnectError(
      new AppError("unauthenticated", { code: "RPC_TOKEN_INVALID", description: "x" }),
    );
    expect(fromConnectError(refused)).toMatchObject({ kind: "internal", code: "INTERNAL" });
    const tenant = toConnectError(
      new AppError("unauthenticated", { code: "TENANT_MISSING", description: "x" }),
    );
    expect(fromConnectError(tenant)).toMatchObject({ kind: "unauthenticated", code: "TENANT_MISSING" });
  });
});
