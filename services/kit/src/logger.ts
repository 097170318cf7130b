import { pino } from "pino";
import { currentTraceId } from "./otel.ts";

export type Logger = pino.Logger;

/** The process logger: pino JSON, the active trace id on every line (to stdout unless `destination`). */
export function createLogger(opts: {
  service: string;
  level?: string;
  destination?: pino.DestinationStream;
}): Logger {
  const options: pino.LoggerOptions = {
    name: opts.service,
    level: opts.level ?? "info",
    base: { service: opts.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const traceId = currentTraceId();
      return traceId ? { traceId } : {};
    },
    redact: { paths: ["req.headers.authorization", "authorization"], censor: "[redacted]" },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
