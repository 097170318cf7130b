/**
 * Rendering pick job documents off the service's event loop: a kit TenantPool (piscina) running
 * render-worker.ts, at most DOCUMENT_RENDERS_PER_TENANT renders of one tenant at once and
 * DOCUMENT_RENDER_QUEUE_PER_TENANT waiting (beyond: 429), dropped or stopped once the caller's
 * deadline passes (503), in threads of lower scheduling priority (DOCUMENT_RENDER_NICE). Outcomes are counted in fop_document_renders_total{outcome}.
 */
import type { RequestContext } from "@fop/kit/context";
import { currentCall } from "@fop/kit/deadline";
import { createCounter, type Metrics } from "@fop/kit/metrics";
import { TenantPool } from "@fop/kit/tenant-pool";
import type { DocumentKind } from "./pdf.ts";
import type { RenderTask } from "./render-worker.ts";

export interface RenderedDocument {
  content: Uint8Array;
  fileName: string;
}

/**
 * What the use cases need: a place for one render of the caller's tenant, taken before anything is
 * loaded for it (a flood is refused before it costs a read), then the render of a job given as its
 * stored JSON text (parsed in the render thread, not on the event loop). `render` answers undefined
 * when the job has no document of that kind.
 */
export interface DocumentRenderer {
  admit(ctx: RequestContext): RenderSlot;
  close(): Promise<void>;
}

export interface RenderSlot {
  render(
    jobJson: string,
    kind: DocumentKind,
    now: Date,
    locale?: string,
  ): Promise<RenderedDocument | undefined>;
  /** Gives the place back when nothing is rendered (e.g. the job was not found). */
  release(): void;
}

export interface RendererOptions {
  workers: number;
  perTenant: number;
  queuePerTenant: number;
  /** The render threads' nice value (kit TenantPool). */
  nice?: number;
  metrics?: Metrics;
}

export function pooledRenderer(opts: RendererOptions): DocumentRenderer {
  const counter = opts.metrics
    ? createCounter(
        opts.metrics,
        "fop_document_renders_total",
        "Pick job document renders by outcome (done; rejected: over the tenant's bound; dropped, terminated: the caller gave up; failed)",
        ["outcome"],
      )
    : undefined;
  const pool = new TenantPool({
    // Beside this module: render-worker.ts from source, render-worker.js from dist/.
    module: new URL(`./render-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url),
    size: opts.workers,
    perKey: opts.perTenant,
    perKeyQueue: opts.queuePerTenant,
    what: "document render",
    nice: opts.nice,
    onOutcome: (outcome) => counter?.inc({ outcome }),
  });
  return {
    admit(ctx) {
      const call = currentCall();
      const ticket = pool.admit({ key: ctx.tenant, signal: call?.signal, deadline: call?.deadline });
      return {
        async render(jobJson, kind, now, locale) {
          const task: RenderTask = { jobJson, kind, nowMs: now.getTime(), locale };
          return (await ticket.run<RenderedDocument | { missing: true }>("render", task)) as
            | RenderedDocument
            | undefined;
        },
        release: () => ticket.release(),
      };
    },
    close: () => pool.close(),
  };
}
