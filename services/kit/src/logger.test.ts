import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";
import { withSpan } from "./otel.ts";

describe("createLogger", () => {
  it("puts the active span's trace_id, span_id and trace_flags on each line, nothing outside a span", async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const log = createLogger({ service: "t", destination });
    log.info("outside");
    const sc = await withSpan("logged", {}, async (span) => {
      log.info("inside");
      return span.spanContext();
    });
    expect(lines[0]).not.toHaveProperty("trace_id");
    expect(lines[0]).not.toHaveProperty("span_id");
    expect(lines[1]).toMatchObject({
      msg: "inside",
      trace_id: sc.traceId,
      span_id: sc.spanId,
      trace_flags: "01",
    });
    expect(lines[1]).not.toHaveProperty("traceId");
  });
});
