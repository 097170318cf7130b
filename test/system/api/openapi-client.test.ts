/**
 * A client generated from the served /api/openapi.json works: openapi-typescript writes its types
 * (into a temporary folder of the test workspace, beside a copy of support/openapi-client/'s
 * program), `tsc --noEmit` checks the program against them, and the program (openapi-fetch) takes
 * a pick job round the system: created, STARTed, read, found by search. Generated at test time,
 * not committed: nothing to keep current by hand when a route changes. And the served document is
 * at most 600 KB.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { type System, startSystem } from "../../support/system.ts";

const PROGRAM = path.resolve(import.meta.dirname, "../../support/openapi-client/pick-job-round-trip.ts");
const MAX_BYTES = 600_000;

let sys: System;
let dir: string;
let served: { status: number; type: string | null; text: string };

beforeAll(async () => {
  sys = await startSystem();
  const res = await fetch(`${sys.baseUrl}/api/openapi.json`);
  served = { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  await mkdir(path.resolve(import.meta.dirname, "../../.tmp"), { recursive: true });
  dir = await mkdtemp(path.resolve(import.meta.dirname, "../../.tmp/openapi-client-"));
  await writeFile(path.join(dir, "api.ts"), astToString(await openapiTS(JSON.parse(served.text))));
  await copyFile(PROGRAM, path.join(dir, path.basename(PROGRAM)));
});
afterAll(async () => {
  await sys?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a client generated from /api/openapi.json", () => {
  it("is served at most 600 KB", () => {
    expect(served.status).toBe(200);
    expect(served.type).toMatch(/^application\/json/);
    const bytes = Buffer.byteLength(served.text);
    console.info(`/api/openapi.json: ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
  });

  it("typechecks a program using it", async () => {
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: path.resolve(import.meta.dirname, "../../../tsconfig.json"),
        include: ["*.ts"],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const run = await promisify(execFile)(process.execPath, [tsc, "--noEmit", "-p", dir]).catch(
      (err: { code?: number; stdout?: string }) => err,
    );
    expect(String(run.stdout ?? "")).toBe("");
    expect((run as { code?: number }).code ?? 0).toBe(0);
  }, 120_000);

  it("takes a pick job round the system: created, STARTed, read, found", async () => {
    // Its types are the generated ones, checked above (this workspace has no api.ts to check them with).
    type Answer = { status: number; body: any };
    const program = (await import(pathToFileURL(path.join(dir, path.basename(PROGRAM))).href)) as {
      pickJobRoundTrip(baseUrl: string, token: string, address: object): Promise<Record<string, Answer>>;
    };
    const token = await sys.token("openapi-client", { user: "client.user" });
    const { facility, created, started, read, found } = (await program.pickJobRoundTrip(
      sys.baseUrl,
      token,
      facilityAddress,
    )) as Record<"facility" | "created" | "started" | "read" | "found", Answer>;
    expect(facility.status).toBe(201);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "OPEN", version: 1, facilityRef: facility.body.id });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ id: created.body.id, status: "IN_PROGRESS", version: 2 });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(started.body);
    expect(found.status).toBe(200);
    expect(found.body.pickJobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([
      [created.body.id, "IN_PROGRESS"],
    ]);
    expect(found.body.total).toBe(1);
  });
});
