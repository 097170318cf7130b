/**
 * `npm start`: the whole platform on this machine, by the rules of DESIGN.md "Running".
 * Postgres: DATABASE_URL, else 127.0.0.1:5432, else embedded (data in .data/postgres).
 * NATS: NATS_URL, else 127.0.0.1:4222, else nats-server -js on PATH, else a clear error.
 * Mail: SMTP_URL, else a local capture server (SMTP on 2525, the mails listed at
 * http://127.0.0.1:8025), so the notification e-mails can be seen.
 * Then migrations, every service, the gateway on PORT (8080). Ctrl-C stops everything.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { createInterface } from "node:readline";
import { serviceDatabaseUrl } from "@fop/kit/db/orm";
import { findOrStartNats, findOrStartPostgres, type Handle } from "@fop/kit/infra";
import { SERVICE_PORTS } from "@fop/kit/service";
import { startMailCapture } from "@fop/notifications/dev/mail-capture";
import { setupDatabase } from "./db-setup.ts";
import { GATEWAY_MAIN, REPO_ROOT, SERVICES } from "./services.ts";

const DATA = path.join(REPO_ROOT, ".data");
const log = (msg: string) => console.log(`\x1b[36m[start]\x1b[0m ${msg}`);
const children: { name: string; proc: ChildProcess }[] = [];
const infra: Handle[] = [];
let stopping = false;

function run(name: string, main: string, env: Record<string, string>): ChildProcess {
  const proc = spawn(process.execPath, ["--conditions=source", "--import", "@fop/kit/otel-register", main], {
    cwd: REPO_ROOT,
    env: { ...process.env, OTEL_SERVICE_NAME: name, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    createInterface({ input: stream! }).on("line", (line) => console.log(`\x1b[35m[${name}]\x1b[0m ${line}`));
  }
  proc.once("exit", (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push({ name, proc });
  return proc;
}

/**
 * A secret kept in .data so what it protects outlives a restart (created on first use): the
 * services' cursor secret, the key sealing webhook secrets, the RPC key (`npm run rpc-token` reads it).
 */
function persistedSecret(name: string, encoding: "base64url" | "base64"): string {
  const file = path.join(DATA, name);
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(DATA, { recursive: true });
    const secret = randomBytes(32).toString(encoding);
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

/** The local mail capture: SMTP on 2525, the mails (newest first) as JSON at http://127.0.0.1:8025. */
async function startLocalMail(): Promise<string> {
  const capture = await startMailCapture({ port: Number(process.env.MAIL_CAPTURE_SMTP_PORT ?? 2525) });
  const web = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify({ mails: [...capture.mails].reverse() }, null, 2));
  });
  const webPort = Number(process.env.MAIL_CAPTURE_WEB_PORT ?? 8025);
  await new Promise<void>((resolve) => web.listen(webPort, "127.0.0.1", () => resolve()));
  infra.push({
    source: "mail capture",
    url: capture.url,
    stop: async () => {
      web.close();
      await capture.close();
    },
  });
  log(`mail: ${capture.url} (captured mails: http://127.0.0.1:${webPort})`);
  return capture.url;
}

async function waitReady(name: string, url: string, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (stopping) return;
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} did not become ready at ${url} within ${timeoutMs / 1000}s`);
}

async function stop(code: number): Promise<never> {
  stopping = true;
  await Promise.all(
    children.map(
      ({ proc }) =>
        new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once("exit", () => resolve());
          proc.kill("SIGTERM");
          setTimeout(() => proc.kill("SIGKILL"), 10_000).unref();
        }),
    ),
  );
  for (const h of infra.reverse()) await h.stop().catch(() => {});
  process.exit(code);
}

process.once("SIGINT", () => {
  log("stopping…");
  void stop(0);
});
process.once("SIGTERM", () => void stop(0));

try {
  const pg = await findOrStartPostgres({ database: "fop", dataDir: path.join(DATA, "postgres"), log });
  infra.push(pg);
  log(`Postgres: ${pg.source}`);
  const nats = await findOrStartNats({ dataDir: path.join(DATA, "nats"), log });
  infra.push(nats);
  log(`NATS: ${nats.source}`);

  await setupDatabase(pg.url, log);

  const logLevel = process.env.LOG_LEVEL ?? "info";
  const secret = process.env.CURSOR_SECRET ?? persistedSecret("cursor-secret", "base64url");
  const rpcAuthKey = process.env.RPC_AUTH_KEY ?? persistedSecret("rpc-auth-key", "base64url");
  const smtpUrl = process.env.SMTP_URL ?? (await startLocalMail());
  // Notifications on a developer's machine: mails to the capture server, webhooks to local receivers.
  const notificationsEnv = {
    SMTP_URL: smtpUrl,
    WEBHOOK_SECRETS_KEY: process.env.WEBHOOK_SECRETS_KEY ?? persistedSecret("webhook-secrets-key", "base64"),
    WEBHOOK_ALLOW_HTTP: process.env.WEBHOOK_ALLOW_HTTP ?? "true",
    WEBHOOK_ALLOWED_CIDRS: process.env.WEBHOOK_ALLOWED_CIDRS ?? "127.0.0.0/8,::1/128",
  };
  for (const { module, main } of SERVICES) {
    const ports = SERVICE_PORTS[module.name];
    run(module.name, main, {
      DATABASE_URL: serviceDatabaseUrl(pg.url, module.schema),
      NATS_URL: nats.url,
      PORT: String(ports.rpc),
      ADMIN_PORT: String(ports.admin),
      LOG_LEVEL: logLevel,
      CURSOR_SECRET: secret,
      RPC_AUTH_KEY: rpcAuthKey,
      // A developer's machine: dead letters (read, replay) for callers on it, unless ADMIN_TOKEN is set.
      ADMIN_LOOPBACK_TRUST: process.env.ADMIN_LOOPBACK_TRUST ?? "true",
      ...(module.name === "notifications" ? notificationsEnv : {}),
    });
  }
  for (const { module } of SERVICES)
    await waitReady(module.name, `http://127.0.0.1:${SERVICE_PORTS[module.name].admin}/readyz`);

  const port = process.env.PORT ?? "8080";
  run("gateway", GATEWAY_MAIN, {
    PORT: port,
    LOG_LEVEL: logLevel,
    GRAPHQL_GRAPHIQL: "true",
    RPC_AUTH_KEY: rpcAuthKey,
    // The rate limit's exchange between gateway replicas (one here, but the same NATS as the services).
    NATS_URL: nats.url,
    ...Object.fromEntries(
      SERVICES.map(({ module }) => [
        `${module.name.toUpperCase()}_URL`,
        `http://127.0.0.1:${SERVICE_PORTS[module.name].rpc}`,
      ]),
    ),
  });
  await waitReady("gateway", `http://127.0.0.1:${port}/readyz`);
  log(`ready: http://127.0.0.1:${port}  (docs: http://127.0.0.1:${port}/docs, OpenAPI: /api/openapi.json)`);
  log(`GraphQL: http://127.0.0.1:${port}/graphql  (GraphiQL: http://127.0.0.1:${port}/graphiql)`);
  log(`get a token:  npm run token -- --tenant acme --roles ADMIN`);
  log(`call a service directly (gRPC, Connect): npm run rpc-token -- --caller me --tenants acme`);
  log("Ctrl-C stops everything");
} catch (err) {
  console.error(`\x1b[31m[start]\x1b[0m ${(err as Error).message}`);
  await stop(1);
}
