/**
 * The house's import rules (.config/biome.json, overrides with `noRestrictedImports`; `npm run lint`
 * keeps the tree to them in CI): each shown catching a planted import, and leaving alone what it
 * allows. The planted files go into a scratch copy of the layout (services/<svc>/src/...,
 * gateway/src/...) with the project's Biome configuration, never into the tree.
 *   1. services/<svc>/src/domain/** imports no transport, database, events, NATS or wire types
 *      (@fop/proto, @bufbuild, @connectrpc, fastify, pg, @nats-io, @mikro-orm, the kit's rpc/db/events,
 *      the contracts' clients of other services, a sibling rpc/ db/ events/ usecases/ folder);
 *   2. no service and not the gateway imports another service's package (@fop/<service>).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../../..");
const biome = path.join(repo, "node_modules/.bin/biome");
const scratch = mkdtempSync(path.join(tmpdir(), "fop-import-rules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const config = JSON.parse(readFileSync(path.join(repo, ".config/biome.json"), "utf8")) as Record<
  string,
  unknown
>;
delete config.$schema;
mkdirSync(path.join(scratch, ".config"));
writeFileSync(path.join(scratch, ".config/biome.json"), JSON.stringify(config));

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

/** Biome's lint diagnostics for one file with `source`, planted at `file` (relative to the repo). */
function lint(file: string, source: string): Diagnostic[] {
  const dir = mkdtempSync(path.join(scratch, "case-"));
  cpSync(path.join(scratch, ".config"), path.join(dir, ".config"), { recursive: true });
  mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
  writeFileSync(path.join(dir, file), source);
  let out: string;
  try {
    out = execFileSync(
      biome,
      ["lint", "--config-path=.config", "--vcs-enabled=false", "--reporter=json", file],
      {
        cwd: dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
  } catch (err) {
    // Exit 1 when it found errors: the report is on stdout all the same.
    out = (err as { stdout: string }).stdout;
  }
  return (JSON.parse(out) as { diagnostics: Diagnostic[] }).diagnostics;
}

const restricted = (d: Diagnostic[]) => d.filter((x) => x.category === "lint/style/noRestrictedImports");
const importing = (spec: string) => `import { thing } from "${spec}";\n\nexport const used = [thing];\n`;

describe("import rules", () => {
  it.each([
    "@fop/proto/fop/events/v1/envelope_pb.js",
    "@bufbuild/protobuf",
    "@connectrpc/connect",
    "fastify",
    "pg",
    "@nats-io/jetstream",
    "@mikro-orm/core",
    "@fop/kit/db/sql",
    "@fop/kit/events/outbox",
    "@fop/kit/rpc/server",
    "@fop/contracts/clients/facilities",
    "../rpc/routes.ts",
    "../db/orm.ts",
    "../usecases/pickjobs.ts",
  ])("domain/ may not import %s", (spec) => {
    const found = restricted(lint("services/picking/src/domain/planted.ts", importing(spec)));
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/^domain\/ is plain logic/);
  });

  it("domain/ may import the kit's plain modules, the contracts, its siblings and Node", () => {
    const source = [
      'import { invalid } from "@fop/kit/errors";',
      'import type { JsonObject } from "@fop/kit/json";',
      'import { PICK_JOB_STATUSES } from "@fop/contracts/picking";',
      'import { sibling } from "./types.ts";',
      'import { createHash } from "node:crypto";',
      "",
      "export const used = [invalid, PICK_JOB_STATUSES, sibling, createHash] as unknown as JsonObject;",
      "",
    ].join("\n");
    expect(restricted(lint("services/picking/src/domain/planted.ts", source))).toEqual([]);
  });

  it.each([
    ["services/loadunits/src/events/planted.ts", "@fop/picking/src/domain/types.ts"],
    ["services/audit/src/usecases/planted.ts", "@fop/catalog"],
    ["services/catalog/src/domain/planted.ts", "@fop/returns/src/domain/types.ts"],
    ["gateway/src/routes/planted.ts", "@fop/notifications/src/rpc/routes.ts"],
    ["services/picking/src/rpc/planted.ts", "@fop/gateway/src/app.ts"],
  ])("%s may not import another service (%s)", (file, spec) => {
    const found = restricted(lint(file, importing(spec)));
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/^No package imports another service/);
  });

  it("outside domain/, a service may use the wire, the database and the kit", () => {
    const source = [
      'import { create } from "@bufbuild/protobuf";',
      'import { query } from "@fop/kit/db/sql";',
      'import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";',
      'import { thing } from "../domain/types.ts";',
      "",
      "export const used = [create, query, PickJobSchema, thing];",
      "",
    ].join("\n");
    expect(restricted(lint("services/picking/src/rpc/planted.ts", source))).toEqual([]);
  });
});
