import { AppError, invalid, notFound } from "@fop/kit/errors";
import { toConnectError } from "@fop/kit/rpc/errors";
import { describe, expect, it, vi } from "vitest";
import { formatExecution } from "./errors.ts";
import { gql } from "./graphql-js.ts";

const located = (err: Error, path: string[]) =>
  new gql.GraphQLError(err.message, { path, originalError: err });
const log = () => ({ error: vi.fn() });

describe("GraphQL errors", () => {
  it("a failed field: data stays, HTTP 200, the REST code and status in extensions", () => {
    const l = log();
    const out = formatExecution(
      {
        data: { category: null, facilities: { edges: [] } },
        errors: [located(notFound("category", "x"), ["category"])],
      },
      l,
    );
    expect(out.statusCode).toBe(200);
    expect(out.response.data).toEqual({ category: null, facilities: { edges: [] } });
    expect(out.response.errors).toEqual([
      {
        message: 'No category with id "x" exists.',
        path: ["category"],
        extensions: {
          code: "CATEGORY_NOT_FOUND",
          kind: "NOT_FOUND",
          status: 404,
          summary: "The requested entity was not found.",
        },
      },
    ]);
    expect(l.error).not.toHaveBeenCalled();
  });

  it("a service's version conflict (a Connect error) keeps requestVersion and version", () => {
    const conflict = new AppError("version_conflict", {
      code: "VERSION_CONFLICT",
      description: "at 3, asked 2",
      requestVersion: 2,
      version: 3,
    });
    const out = formatExecution(
      { data: { x: null }, errors: [located(toConnectError(conflict), ["x"])] },
      log(),
    );
    expect(out.response.errors[0]!.extensions).toMatchObject({
      code: "VERSION_CONFLICT",
      status: 409,
      requestVersion: 2,
      version: 3,
    });
  });

  it("nothing ran: the error's status (401 before GraphQL, 400 for invalid input)", () => {
    const unauth = new AppError("unauthenticated", { code: "MISSING_TOKEN", description: "Send a token." });
    expect(
      formatExecution({ errors: [new gql.GraphQLError(unauth.message, { originalError: unauth })] }, log()),
    ).toMatchObject({
      statusCode: 401,
      response: { data: null, errors: [{ extensions: { code: "MISSING_TOKEN", status: 401 } }] },
    });
    const tooComplex = invalid("QUERY_TOO_COMPLEX", "too much");
    expect(formatExecution({ errors: [tooComplex] }, log()).statusCode).toBe(400);
    const syntax = new gql.GraphQLError("Syntax Error: Unexpected Name");
    expect(formatExecution({ errors: [syntax] }, log()).response.errors[0]!.extensions.code).toBe(
      "GRAPHQL_PARSE_FAILED",
    );
  });

  it("a bug is logged and answered as INTERNAL, without its message", () => {
    const l = log();
    const out = formatExecution(
      { data: { x: null }, errors: [located(new TypeError("secret detail"), ["x"])] },
      l,
    );
    expect(out.response.errors[0]).toEqual({
      message: "An internal error occurred.",
      path: ["x"],
      extensions: { code: "INTERNAL", kind: "INTERNAL", status: 500 },
    });
    expect(l.error).toHaveBeenCalledOnce();
  });

  it("a timeout of a mutation is OUTCOME_UNKNOWN (it may have been applied)", () => {
    const timeout = new AppError("timeout", { code: "DEADLINE_EXCEEDED" });
    const err = located(timeout, ["createCategory"]);
    expect(
      formatExecution({ data: { createCategory: null }, errors: [err] }, log(), true).response.errors[0]!
        .extensions.code,
    ).toBe("OUTCOME_UNKNOWN");
    expect(
      formatExecution({ data: { category: null }, errors: [err] }, log()).response.errors[0]!.extensions.code,
    ).toBe("DEADLINE_EXCEEDED");
  });
});
