/** The worker thread that renders pick job documents (see documents/renderer.ts). */
import { poolTask } from "@fop/kit/tenant-pool";
import type { PickJob } from "../domain/types.ts";
import { type DocumentKind, hasDocument, renderDocument } from "./pdf.ts";

export interface RenderTask {
  /** The job as stored (its JSON text): parsed here, off the service's event loop. */
  jobJson: string;
  kind: DocumentKind;
  /** "Now" of the request (epoch ms): the PDF's dates, so the same request gives the same bytes. */
  nowMs: number;
  locale?: string | undefined;
}

/** The document, or undefined when the job has none of this kind. */
export const render = poolTask((t: RenderTask) => {
  const job = JSON.parse(t.jobJson) as PickJob;
  if (!hasDocument(job, t.kind)) return undefined;
  return renderDocument(job, t.kind, new Date(t.nowMs), { locale: t.locale });
});
