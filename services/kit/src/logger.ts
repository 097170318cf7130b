import { pino } from "pino";
import { traceLogFields } from "./otel.ts";

export type Logger = pino.Logger;

/**
 * The process logger: pino JSON (to stdout unless `destination`); every line logged under a span
 * carries its `trace_id`, `span_id` and `trace_flags` (the OpenTelemetry names for them in logs).
 */
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
    mixin: () => traceLogFields() ?? {},
    redact: { paths: ["req.headers.authorization", "authorization"], censor: "[redacted]" },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
