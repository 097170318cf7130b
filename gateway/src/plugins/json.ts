/**
 * Request bodies, checked once at the door (the rules: @fop/kit/schemas/json-values, which a
 * service applies to a direct caller's body too): JSON only, an empty body is no body.
 */
import { AppError } from "@fop/kit/errors";
import { parseJsonBody } from "@fop/kit/schemas/json-values";
import type { FastifyInstance } from "fastify";

export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBody(bytes));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // Any other media type: no body is fine (empty means none), a body is not something we take.
  app.removeContentTypeParser(["text/plain"]);
  app.addContentTypeParser("*", { parseAs: "buffer" }, (req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(
      new AppError("unsupported_media_type", {
        code: "UNSUPPORTED_MEDIA_TYPE",
        description: `Bodies must be JSON (Content-Type: application/json), not ${JSON.stringify(
          String(req.headers["content-type"] ?? "").slice(0, 100),
        )}.`,
      }),
      undefined,
    );
  });
}
