import { pino } from "pino";
import { currentTraceId } from "./otel.ts";

export type Logger = pino.Logger;

/** The process logger: pino JSON, the active trace id on every line. */
export function createLogger(opts: { service: string; level?: string }): Logger {
  return pino({
    name: opts.service,
    level: opts.level ?? "info",
    base: { service: opts.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const traceId = currentTraceId();
      return traceId ? { traceId } : {};
    },
    redact: { paths: ["req.headers.authorization", "authorization"], censor: "[redacted]" },
  });
}
