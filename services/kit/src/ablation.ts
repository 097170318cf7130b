/**
 * BENCHMARKS ONLY: switches that turn one layer of a request's path off, or swap it for its
 * alternative, so that the benchmark's ablation mode (test/bench/ablation.ts, `npm run bench --
 * --ablation`) can measure what each layer costs. `FOP_ABLATE=<layer>,...` is refused at startup
 * unless `FOP_BENCH=1` is set as well, and a process running with any layer off says so in its log:
 * no deployment sets either variable, and one that set only FOP_ABLATE would not start.
 *
 * Only layers that have no setting of their own are here. The others are turned off by theirs:
 * tracing by `OTEL_SDK_DISABLED=true` (and its export alone by `OTEL_TRACES_EXPORTER=none`), the
 * gateway's access log by `LOG_LEVEL=warn`, the rate limit by `RATE_LIMIT_ENABLED=false`.
 */
import { ConfigError, type VarSpec } from "./config.ts";

/** What each switch turns off, and what runs instead. */
export const ABLATABLE_LAYERS = {
  validation:
    "gateway: REST request schemas are not checked (no ajv run on the body, the path parameters or the query string; no defaults filled in, no undeclared properties dropped)",
  serialization:
    "gateway: every REST response is JSON.stringify'd instead of by the route's compiled response serializer (fast-json-stringify); routes that send a service's stored document bytes serialize nothing either way",
  auth: "gateway: no bearer token is read or verified and no permission checked; every request runs as the principal of the first request's (verified) token",
  "rpc-http2":
    "the gateway's service calls go over keep-alive HTTP/1.1 connections (node:http, one call at a time per connection) instead of one HTTP/2 session per service; the services then accept both on their RPC port",
  "rpc-protobuf":
    "the gateway's service calls use the Connect JSON codec (application/json, bytes fields as base64) instead of binary protobuf; the services then answer Connect JSON calls on their fast path too",
} as const;

export type AblatableLayer = keyof typeof ABLATABLE_LAYERS;
export type Ablation = ReadonlySet<AblatableLayer>;

/** No layer off: what every deployment runs. */
export const NOTHING_ABLATED: Ablation = new Set();

const isLayer = (name: string): name is AblatableLayer => Object.hasOwn(ABLATABLE_LAYERS, name);

/** The environment of every process with a switch (the gateway and every service). */
export const ablationConfig = {
  FOP_BENCH: {
    parse: (raw: string) => {
      if (raw !== "1" && raw !== "0") throw new Error("must be 1 (a benchmark) or 0");
      return raw === "1";
    },
    fallback: false,
    description: "benchmarks only: 1 allows FOP_ABLATE; never set in a deployment",
  } satisfies VarSpec<boolean>,
  FOP_ABLATE: {
    parse: (raw: string): AblatableLayer[] => {
      const names = [
        ...new Set(
          raw
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ];
      const unknown = names.filter((n) => !isLayer(n));
      if (unknown.length > 0)
        throw new Error(
          `names unknown layer(s) ${unknown.join(", ")}; known: ${Object.keys(ABLATABLE_LAYERS).join(", ")}`,
        );
      return names as AblatableLayer[];
    },
    fallback: [],
    description:
      "benchmarks only (needs FOP_BENCH=1): comma-separated layers to turn off, see @fop/kit/ablation",
  } satisfies VarSpec<AblatableLayer[]>,
};

/**
 * The layers `config` turns off. Throws a {@link ConfigError} when FOP_ABLATE names any without
 * FOP_BENCH=1: a production process refuses to start rather than run without one of its layers.
 */
export function ablatedLayers(config: {
  FOP_BENCH: boolean;
  FOP_ABLATE: readonly AblatableLayer[];
}): Ablation {
  if (config.FOP_ABLATE.length === 0) return NOTHING_ABLATED;
  if (!config.FOP_BENCH)
    throw new ConfigError([
      `FOP_ABLATE=${config.FOP_ABLATE.join(",")} turns layers off and is for benchmarks only: it needs FOP_BENCH=1 (never set it in a deployment)`,
    ]);
  return new Set(config.FOP_ABLATE);
}

/** The log line of a process running with layers off (none when nothing is off). */
export function ablationWarning(ablation: Ablation): string | undefined {
  if (ablation.size === 0) return undefined;
  return `BENCHMARK BUILD: layers turned off (FOP_ABLATE): ${[...ablation].join(", ")}`;
}
