/**
 * Per-process CPU profiles of any checkout of this project under one fixed load, for comparing
 * versions (the bench README's "before" and "after" tables):
 *
 *   node --conditions=source test/bench/profile-start.ts [checkout dir] [output dir]
 *
 * Runs `npm start` in the checkout (its own dependencies must be installed) with every Node
 * process under `--cpu-prof`, the rate limit off and logs at warn; signs a token with its
 * `npm run token`; then 10 s of `GET /api/categories/{id}` and 10 s of `POST /api/categories`
 * (autocannon, 10 connections each); stops it (SIGINT, so every process exits and writes its
 * profile) and prints the top self-time functions per process (profile.ts). It uses ports 8090
 * and the services' defaults: nothing else of the project may be running.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { profileTables } from "./profile.ts";

const checkout = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "../.."));
const out = path.resolve(process.argv[3] ?? path.join(import.meta.dirname, "results/profile-start"));
const raw = path.join(out, "raw");
const PORT = 8090;
const base = `http://127.0.0.1:${PORT}`;
const log = (msg: string) => console.error(`[profile-start] ${msg}`);

rmSync(out, { recursive: true, force: true });
mkdirSync(raw, { recursive: true });
const env = {
  ...process.env,
  NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${raw}`,
  RATE_LIMIT_ENABLED: "false",
  LOG_LEVEL: "warn",
  PORT: String(PORT),
};

async function started(proc: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("npm start was not ready within 120 s")), 120_000);
    const seen = (chunk: Buffer) => {
      if (/ready: http/.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on("data", seen);
    proc.once("exit", (code) => reject(new Error(`npm start exited with ${code}`)));
  });
}

const served: string[] = [];
async function load(title: string, opts: autocannon.Options): Promise<void> {
  const r = await autocannon({ connections: 10, duration: 10, skipAggregateResult: true, ...opts });
  const line = `${title}: ${r.totalCompletedRequests} requests (${Math.round(r.totalCompletedRequests / r.duration)} req/s), non-2xx ${r.non2xx}, errors ${r.errors}`;
  served.push(line);
  log(line);
}

log(`npm start in ${checkout}`);
const app = spawn("npm", ["start"], {
  cwd: checkout,
  env,
  stdio: ["ignore", "pipe", "inherit"],
  detached: true,
});
try {
  await started(app);
  const token = execFileSync(
    "npm",
    ["run", "--silent", "token", "--", "--tenant", "profile", "--roles", "ADMIN"],
    { cwd: checkout, env: { ...process.env, NODE_OPTIONS: "" }, encoding: "utf8" },
  ).trim();
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const created = await fetch(`${base}/api/categories`, {
    method: "POST",
    headers,
    body: JSON.stringify({ nameLocalized: { en_US: "Profiled" } }),
  });
  const { id } = (await created.json()) as { id: string };
  await load("GET category", { url: `${base}/api/categories/${id}`, headers });
  let n = 0;
  await load("POST category", {
    url: `${base}/api/categories`,
    method: "POST",
    headers,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ tenantCategoryId: `P-${Date.now()}-${n++}`, nameLocalized: { en_US: "p" } }),
        }),
      },
    ],
  });
} finally {
  process.kill(-app.pid!, "SIGINT");
  await new Promise((r) => app.once("exit", r));
  await new Promise((r) => setTimeout(r, 2000)); // the services write their profiles as they exit
}

// Name each profile after the process it is of (its main module), drop the rest (npm, launcher).
const mains: [string, RegExp][] = [
  ["gateway", /gateway\/src\/main\.ts$/],
  ["catalog", /services\/catalog\/src\/main\.ts$/],
  ["picking", /services\/picking\/src\/main\.ts$/],
  ["audit", /services\/audit\/src\/main\.ts$/],
];
for (const file of readdirSync(raw)) {
  const profile = JSON.parse(readFileSync(path.join(raw, file), "utf8")) as {
    nodes: { callFrame: { url: string } }[];
  };
  const name = mains.find(([, re]) => profile.nodes.some((n) => re.test(n.callFrame.url)))?.[0];
  if (name) renameSync(path.join(raw, file), path.join(out, `${name}.cpuprofile`));
}
rmSync(raw, { recursive: true, force: true });
console.log(`Load: ${served.join("; ")}.\n`);
console.log(profileTables(out, 10));
