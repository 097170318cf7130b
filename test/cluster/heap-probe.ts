/**
 * The soak's memory probe, loaded into every service and gateway process it starts
 * (`NODE_OPTIONS=--import=<this file>`, soak.ts; nothing of it runs in a deployment). A process's
 * RSS says little about what it keeps: V8 sizes its young generation by the allocation rate (the
 * busiest picking replica's grew from 4 to 64 MiB and back within minutes, RSS with it, while what
 * survived a full GC stayed at 30-31 MiB; issue 27). So the soak asks each process, every sample,
 * for its memory after a full, memory-reducing GC (the inspector's HeapProfiler.collectGarbage, as
 * DevTools' "collect garbage" does): what it still references.
 *
 * `GET /` on the port it writes to `$HEAP_PROBE_DIR/<pid>` answers that GC's
 * `process.memoryUsage()` as JSON. `HEAP_PROBE_LEAK=<path part>:<bytes>` makes a process whose main
 * module's path contains `<path part>` keep `<bytes>` on its heap per HTTP/2 stream it serves (an
 * RPC): a leak the soak must catch (`SOAK_LEAK=picking:1024 npm run soak -- --minutes 3 ...`).
 */
import dc from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import http from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { isMainThread } from "node:worker_threads";

const dir = process.env.HEAP_PROBE_DIR;
if (isMainThread && dir) {
  const session = new Session();
  session.connect();
  let gc = Promise.resolve();
  const server = http.createServer((_req, res) => {
    // One GC at a time, however many samplers ask.
    gc = gc.then(async () => {
      await session.post("HeapProfiler.collectGarbage");
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(process.memoryUsage()));
    });
  });
  server.listen(0, "127.0.0.1", () => {
    writeFileSync(path.join(dir, String(process.pid)), String((server.address() as AddressInfo).port));
  });
  server.unref();

  const [part, bytes] = (process.env.HEAP_PROBE_LEAK ?? "").split(":");
  if (part && Number(bytes) > 0 && process.argv[1]?.includes(part)) {
    const kept: number[][] = [];
    // 8 bytes per element of a packed array of small integers.
    dc.subscribe("http2.server.stream.start", () => {
      kept.push(new Array(Math.ceil(Number(bytes) / 8)).fill(kept.length));
    });
  }
}
