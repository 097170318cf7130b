/** The command line every process of the platform runs with. */

/**
 * The garbage collector's settings, part of {@link PROCESS_NODE_ARGS}; the bench's process, which
 * runs the gateway in it, runs with them too.
 */
export const GC_NODE_ARGS: readonly string[] = [
  // The young generation's semi-spaces at most 16 MiB (V8 sizes them from the heap limit: on a
  // 24 GiB machine they grow past 64 MiB). A scavenge's pause is the copying of what survives in
  // them, and every request in flight waits for it: with the default, the gateway's scavenges took
  // 19-24 ms each and made the reads' p99; at 16 MiB they take about 6 ms, for 1-4 us more
  // scavenging CPU per RPC call (test/bench/README.md, "What a call leaves to the scavenger").
  "--max-semi-space-size=16",
];

/**
 * How every process of the platform is started: `node <PROCESS_NODE_ARGS> <its main module>`.
 * `npm start` (deploy/local/src/start.ts) and the tests (test/support/boot.ts) spawn processes with
 * this list; the Dockerfile's CMD, the Kubernetes manifests' commands and the packages' `start`
 * scripts write it out, the bench's script (whose process runs the gateway) its
 * {@link GC_NODE_ARGS}, and test/system/ops/process-args.test.ts holds each of them to it.
 */
export const PROCESS_NODE_ARGS: readonly string[] = [
  // Workspace packages resolve to their TypeScript sources: there is no build step.
  "--conditions=source",
  ...GC_NODE_ARGS,
  // Tracing starts before the main module loads (otel-register.ts).
  "--import",
  "@fop/kit/otel-register",
];
