/**
 * JSON bodies: parsed as usual, but strings (and keys) containing NUL characters are rejected with
 * a 400. Postgres text cannot store NUL, and no platform field has a use for it.
 */
import { AppError } from "@fop/kit/errors";
import type { FastifyInstance } from "fastify";

function hasNul(v: unknown, depth = 0): boolean {
  if (typeof v === "string") return v.includes("\u0000");
  if (depth > 200 || v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.some((x) => hasNul(x, depth + 1));
  return Object.entries(v).some(([k, x]) => k.includes("\u0000") || hasNul(x, depth + 1));
}

const malformed = () =>
  new AppError("invalid", {
    code: "MALFORMED_JSON",
    summary: "Invalid input.",
    description: "The body is not valid JSON.",
  });

export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === "") return done(malformed(), undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(malformed(), undefined);
    }
    if (hasNul(value)) {
      return done(
        new AppError("invalid", {
          code: "INVALID_CHARACTER",
          summary: "Invalid input.",
          description: "Strings must not contain NUL (\\u0000) characters.",
        }),
        undefined,
      );
    }
    done(null, value);
  });
}
