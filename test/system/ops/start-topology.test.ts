/**
 * `npm start -- --replicas 3 --nats-cluster` (deploy/local/src/start.ts) runs the production
 * topology on one machine and comes up ready; the README's first-call walk-through passes against it
 * unchanged; Ctrl-C stops every process it started.
 *
 * - The launcher runs as a developer runs it, `npm start` in a process group of its own (a terminal's
 *   foreground group), beside a developer's own `npm start` and the other tests: `--free-ports`
 *   (every balancer and process on a free port, PORT given), `--data-dir` in a temp dir (secrets,
 *   NATS stores), a fresh database (DATABASE_URL) on the suite's Postgres, its own token key
 *   (AUTH_DEV_KEY_FILE, which `npm run token` reads too).
 * - The walk-through: README.md's shell blocks after "Then get a token and make a first call", run
 *   by bash as they are written, the gateway's address (127.0.0.1:8080) replaced by the launcher's.
 *   They need curl and jq, as the README says. Then the category's audit record, which comes through
 *   the outbox, the three-server JetStream stream and the audit-records consumer.
 * - Processes: the launcher's descendants, from `ps`: 3 gateways, 3 of each of the 7 services and 3
 *   nats-servers. The requests reached more than one gateway: each gateway's own /metrics.
 * - The stream and every durable consumer have three replicas (the consumers inherit the stream's).
 * - Ctrl-C is SIGINT to the launcher's process group; afterwards none of its processes is left.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { freePort } from "@fop/kit/dev/infra";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually } from "../../support/system.ts";

const REPO = path.resolve(import.meta.dirname, "../../..");
const REPLICAS = 3;
const SERVICES = ["catalog", "audit", "picking", "loadunits", "carriers", "returns", "notifications"];
/** Start-up on 2 busy cores: 24 Node processes and 3 nats-servers (measured 22-90 s). */
const READY_WITHIN_MS = 150_000;

let tmp: string;
let db: TestDatabase;
let port: number;
let launcher: ChildProcess;
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let output = "";
/** The launcher's descendants while it ran (pid -> command line). */
let processes = new Map<number, string>();

const plain = () => stripVTControlCharacters(output);
const tail = () => plain().split("\n").slice(-60).join("\n");

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "fop-start-topology-"));
  db = await createTestDatabase(inject("adminUrl"));
  port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    PORT: String(port),
    AUTH_DEV_KEY_FILE: path.join(tmp, "dev-signing-key.json"),
    LOG_LEVEL: "warn",
  };
  delete env.NATS_URL; // the launcher starts its own cluster
  launcher = spawn(
    "npm",
    [
      "start",
      "--",
      "--replicas",
      String(REPLICAS),
      "--nats-cluster",
      "--free-ports",
      "--data-dir",
      path.join(tmp, "data"),
    ],
    { cwd: REPO, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  exited = new Promise((resolve) => launcher.once("exit", (code, signal) => resolve({ code, signal })));
  for (const s of [launcher.stdout!, launcher.stderr!]) s.on("data", (d: Buffer) => (output += d.toString()));
  const started = Date.now();
  const ready = await Promise.race([
    eventually(async () => /\[start\] ready: /.test(plain()), READY_WITHIN_MS, 250).then(() => true),
    exited.then(() => false),
  ]).catch(() => false);
  if (!ready) throw new Error(`npm start did not come up ready:\n${tail()}`);
  console.log(`npm start -- --replicas ${REPLICAS} --nats-cluster: ready in ${Date.now() - started} ms`);
  processes = descendants(launcher.pid!);
  console.log(`${processes.size} processes under npm start`);
}, READY_WITHIN_MS + 30_000);

afterAll(async () => {
  // After a failure: nothing may outlive the test (the group, and the servers in groups of their own).
  if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
    const left = descendants(launcher.pid!);
    process.kill(-launcher.pid!, "SIGINT");
    await Promise.race([exited, sleep(15_000)]);
    for (const pid of left.keys()) if (alive(pid)) process.kill(pid, "SIGKILL");
    if (alive(launcher.pid!)) process.kill(launcher.pid!, "SIGKILL");
  }
  await db?.drop().catch(() => {});
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 30_000);

describe("npm start -- --replicas 3 --nats-cluster", () => {
  let token: string;
  let categoryId: string;

  it("runs 3 gateways, 3 replicas of each service and 3 nats-servers, and says where", () => {
    const commands = [...processes.values()];
    const count = (main: string) => commands.filter((c) => c.includes(main)).length;
    expect(count("gateway/src/main.ts"), "gateways").toBe(REPLICAS);
    for (const s of SERVICES) expect(count(`services/${s}/src/main.ts`), s).toBe(REPLICAS);
    expect(
      commands.filter((c) => /(^|\/)nats-server /.test(c)),
      "nats-servers",
    ).toHaveLength(3);
    // The table names every replica with its pid.
    for (const name of ["gateway", ...SERVICES])
      for (let i = 1; i <= REPLICAS; i++) {
        const row = plain().match(new RegExp(`\\[start\\]\\s+${name}-${i}\\s.*pid (\\d+)`));
        expect(row, `${name}-${i} in the table`).not.toBeNull();
        expect(processes.has(Number(row![1])), `${name}-${i}'s pid runs`).toBe(true);
      }
  });

  it("passes the README's walk-through, unchanged but for the address", async () => {
    const blocks = readmeWalkthrough();
    expect(blocks).toHaveLength(3);
    const script = [
      "set -e",
      ...blocks.flatMap((b, i) => [
        `echo '@@block ${i + 1}'`,
        b.replaceAll("127.0.0.1:8080", `127.0.0.1:${port}`),
      ]),
      `echo "@@token $TOKEN"`,
    ].join("\n");
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        "bash",
        ["-c", script],
        {
          cwd: REPO,
          env: { ...process.env, AUTH_DEV_KEY_FILE: path.join(tmp, "dev-signing-key.json") },
          timeout: 60_000,
        },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(run, run.stderr).toMatchObject({ code: 0 });
    const [, first, picking, graphql, tokenLine] = run.stdout.split(/@@(?:block \d|token) ?/); // curl -s ends without a newline
    token = tokenLine!.trim();
    expect(token.split(".")).toHaveLength(3);

    // Block 1: the category created, then read by its URN.
    const [created, read] = jsonValues(first!);
    expect(created).toMatchObject({ tenantCategoryId: "BEVERAGES", version: 1 });
    expect(read).toEqual(created);
    categoryId = created.id;
    // Block 2: START, PICK and CLOSE answer the pick job's status; the search finds it.
    expect(picking!.trim().split("\n")).toEqual(['"IN_PROGRESS"', '"PICKED"', '"CLOSED"', "1"]);
    // Block 3: the GraphQL view of that pick job, its facility and lines.
    const data = JSON.parse(graphql!);
    expect(data.pickJobs).toMatchObject({
      totalCount: 1,
      edges: [
        {
          node: {
            status: "CLOSED",
            facility: { name: "Store 1" },
            pickLineItems: [{ article: { title: "Socks" }, quantity: 2, picked: 2 }],
          },
        },
      ],
    });
  }, 90_000);

  it("records the category in the audit log: outbox -> three-server JetStream -> audit-records", async () => {
    expect(categoryId, "the walk-through ran").toBeTruthy();
    const audits = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/audits/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ query: { entityRef: { eq: categoryId } } }),
      });
      const body = (await res.json()) as { audits?: { operation: { name: string } }[] };
      return body.audits?.length ? body.audits : undefined;
    }, 20_000);
    expect(audits.map((a) => a.operation.name)).toEqual(["CATEGORY_CREATED"]);
  });

  it("sent the requests to more than one gateway (per connection, round robin)", async () => {
    const served: number[] = [];
    for (let i = 1; i <= REPLICAS; i++) {
      const own = plain().match(new RegExp(`\\[start\\]\\s+gateway-${i}\\s+127\\.0\\.0\\.1:(\\d+)`))![1];
      const metrics = await (await fetch(`http://127.0.0.1:${own}/metrics`)).text();
      // Requests the API answered (not the launcher's /readyz polls).
      served.push(
        metrics
          .split("\n")
          .filter((l) => /^http_server_request_duration_seconds_count\{.*http_route="\/(api|graphql)/.test(l))
          .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0),
      );
    }
    console.log(`API requests per gateway: ${served.join(", ")}`);
    expect(served.filter((n) => n > 0).length, `requests per gateway: ${served.join(", ")}`).toBeGreaterThan(
      1,
    );
  });

  it("keeps the event stream and every durable consumer on three servers", async () => {
    const natsUrl = plain().match(/NATS_URL=(\S+)/)![1]!;
    expect(natsUrl.split(",")).toHaveLength(3);
    const nc = await connect({ servers: natsUrl.split(","), timeout: 5_000 });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = await jsm.streams.info("EVENTS");
      expect(stream.config.num_replicas).toBe(3);
      expect(stream.cluster?.replicas ?? []).toHaveLength(2); // besides the leader
      const consumers = [];
      for await (const c of jsm.consumers.list("EVENTS")) consumers.push(c);
      // (notifications-dispatch reads lanes, `notifications-dispatch-<key>`, only for what some
      // tenant subscribed to: none here; any that exists is checked below with the others.)
      expect(consumers.map((c) => c.name)).toEqual(
        expect.arrayContaining(["audit-records", "loadunits-pickjobs"]),
      );
      for (const c of consumers) {
        // 0: the stream's number of replicas (the kit sets none).
        expect([0, 3], c.name).toContain(c.config.num_replicas ?? 0);
        expect(c.cluster?.replicas ?? [], c.name).toHaveLength(2);
      }
    } finally {
      await nc.close();
    }
  });

  it("stops every process it started on Ctrl-C", async () => {
    expect(processes.size).toBeGreaterThan(3 * REPLICAS + 7 * REPLICAS);
    const since = Date.now();
    process.kill(-launcher.pid!, "SIGINT");
    const exit = await Promise.race([exited, sleep(40_000).then(() => undefined)]);
    expect(exit, `npm start did not exit within 40 s:\n${tail()}`).toBeDefined();
    console.log(`Ctrl-C: npm start exited (${exit!.signal ?? exit!.code}) in ${Date.now() - since} ms`);
    await eventually(async () => [...processes.keys()].every((pid) => !alive(pid)), 5_000).catch(() => {});
    const left = [...processes].filter(([pid]) => alive(pid)).map(([pid, cmd]) => `${pid} ${cmd}`);
    expect(left, "processes left running").toEqual([]);
  }, 60_000);
});

/** The ```sh blocks of README.md's walk-through: the first call, the pick job, the GraphQL view. */
function readmeWalkthrough(): string[] {
  const readme = readFileSync(path.join(REPO, "README.md"), "utf8");
  const from = readme.indexOf("Then get a token and make a first call");
  const to = readme.indexOf("`npm run token -- --tenant <t>", from);
  expect(from, "README: the walk-through").toBeGreaterThan(0);
  return [...readme.slice(from, to).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Consecutive JSON values (what a few `curl -s` print one after the other). */
function jsonValues(text: string): any[] {
  const values: any[] = [];
  let rest = text.trim();
  while (rest) {
    let end = rest.indexOf("}") + 1;
    for (;;) {
      try {
        values.push(JSON.parse(rest.slice(0, end)));
        break;
      } catch {
        end = rest.indexOf("}", end) + 1;
        if (end === 0) throw new Error(`not JSON: ${rest.slice(0, 200)}`);
      }
    }
    rest = rest.slice(end).trim();
  }
  return values;
}

/** The processes below `root` (pid -> command line), from ps. */
function descendants(root: number): Map<number, string> {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" });
  const rows = out
    .split("\n")
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const found = new Map<number, string>();
  const walk = (pid: number) => {
    for (const r of rows)
      if (r.ppid === pid && !found.has(r.pid)) {
        found.set(r.pid, r.args);
        walk(r.pid);
      }
  };
  walk(root);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
