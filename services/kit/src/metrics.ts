import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** Per-process Prometheus registry with the default Node metrics and the request histogram. */
export interface Metrics {
  registry: Registry;
  /** Request duration by operation (route or RPC method) and outcome (HTTP status or Connect code). */
  requestDuration: Histogram<"operation" | "outcome">;
}

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: "fop_request_duration_seconds",
    help: "Duration of handled requests (REST routes in the gateway, RPC methods in services)",
    labelNames: ["operation", "outcome"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, requestDuration };
}

/** A counter with labels in this process's registry (e.g. outcomes of background work). */
export function createCounter<L extends string>(
  metrics: Metrics,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [metrics.registry] });
}
