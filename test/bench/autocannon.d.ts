/**
 * The part of autocannon 9's programmatic API the benchmark uses (the package ships no types and
 * there is no @types/autocannon in the tree).
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    /** One entry of `requests`; clients loop over the array. */
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each send; return the (modified) request, or a falsy value to restart the sequence. */
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request | null | undefined | false;
      onResponse?: (
        status: number,
        body: string,
        context: Record<string, unknown>,
        headers: Record<string, string | string[]>,
      ) => void;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      amount?: number;
      pipelining?: number;
      /** Seconds. */
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
      workers?: number;
      bailout?: number;
      /** Return the per-thread raw result (encoded histograms) instead of the aggregated one. */
      skipAggregateResult?: boolean;
    }

    /** The result as {@link Options.skipAggregateResult} (or any non-main thread) returns it. */
    interface RawResult {
      totalCompletedRequests: number;
      totalRequests: number;
      totalBytes: number;
      samples: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      statusCodeStats: Record<string, { count: number }>;
      /** Seconds, to 0.01. */
      duration: number;
      start: Date;
      finish: Date;
    }

    interface Instance extends EventEmitter, PromiseLike<RawResult> {
      /** Emitted per response; `responseTime` in milliseconds (fractional). */
      on(
        event: "response",
        listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
      ): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
      stop(): void;
    }
  }

  function autocannon(opts: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
