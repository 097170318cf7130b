/**
 * vitest globalSetup of every workspace: finds or starts Postgres and NATS by the rules the launcher
 * uses (DESIGN.md "Running") once per run and provides their URLs to the tests.
 */
import path from "node:path";
import type { TestProject } from "vitest/node";
import { loadConfig } from "../config.ts";
import { findOrStartNats, findOrStartPostgres, infraConfig } from "../dev/infra.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");

export default async function setup(project: TestProject) {
  const log = (msg: string) => console.log(`[test infra] ${msg}`);
  const env = loadConfig(infraConfig);
  const pg = await findOrStartPostgres({
    database: "fop_test",
    dataDir: path.join(repoRoot, ".data/test-postgres"),
    log,
    env,
  });
  const nats = await findOrStartNats({ dataDir: path.join(repoRoot, ".data/test-nats"), log, env });
  project.provide("adminUrl", pg.url);
  project.provide("natsUrl", nats.url);
  return async () => {
    await nats.stop();
    await pg.stop();
  };
}
