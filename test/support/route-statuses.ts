/**
 * vitest globalSetup of the system tests: every gateway a test boots records the (method, route,
 * status) it answers under /api into a file of one directory (boot.ts: RECORD_ROUTE_STATUSES_FILE);
 * after the last test file, the teardown fails the run listing each one the OpenAPI document does
 * not list for that operation. It runs whatever subset of files was run.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

/** The document, from the gateway's CLI: a global setup does not resolve the workspaces' sources. */
const openApiDocument = () =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ["--conditions=source", path.resolve(import.meta.dirname, "../../gateway/src/cli/openapi.ts")],
      { maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
    ),
  );

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the gateways of the system tests record the statuses their routes answered. */
    routeStatusDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), "fop-route-statuses-"));
  project.provide("routeStatusDir", dir);
  return async () => {
    const lines = readdirSync(dir).flatMap((f) => readFileSync(path.join(dir, f), "utf8").split("\n"));
    rmSync(dir, { recursive: true, force: true });
    const answered = new Set(lines.filter(Boolean));
    const missing = undocumentedStatuses(answered, openApiDocument());
    console.log(
      `[route statuses] ${answered.size} (method, route, status) answered, ${missing.length} not in the OpenAPI document`,
    );
    if (missing.length > 0) {
      throw new Error(
        `The routes answered ${missing.length} status(es) the OpenAPI document does not list for the operation (gateway/src/plugins/openapi.ts adds the gateway's own; a route lists its others in its schema's response):\n  ${missing.join("\n  ")}`,
      );
    }
  };
}

type Schema = Record<string, any>;

/**
 * The `METHOD /route/:pattern status` lines (as the gateway's RECORD_ROUTE_STATUSES_FILE holds them)
 * whose status `doc` does not list for that operation, or whose operation it does not have. A HEAD
 * is answered as the GET of its route (fastify's HEAD routes), so it is held to the GET's statuses.
 */
export function undocumentedStatuses(lines: Iterable<string>, doc: Schema): string[] {
  const out = new Set<string>();
  for (const line of lines) {
    const [method, route, status] = line.trim().split(" ");
    if (!method || !route || !status) continue;
    const path = route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const op = doc.paths?.[path]?.[method === "HEAD" ? "get" : method.toLowerCase()];
    if (!op) out.add(`${line} (the document has no ${method} ${path})`);
    else if (!op.responses?.[status] && !op.responses?.[`${status[0]}XX`] && !op.responses?.default)
      out.add(line);
  }
  return [...out].sort();
}
