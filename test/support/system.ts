/**
 * Boots the whole system for one test file: a fresh database, every service (real Postgres, real
 * NATS), the gateway on a free port, and a local token signer. Everything is driven over HTTP.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { catalogService } from "@fop/catalog";
import { createGateway, gatewayConfig, signDevToken } from "@fop/gateway";
import { loadConfig } from "@fop/kit/config";
import { createLogger } from "@fop/kit/logger";
import { loadServiceConfig, startService } from "@fop/kit/service";
import { createTestDatabase } from "@fop/kit/testing/db";
import { inject } from "vitest";

export interface TokenOptions {
  roles?: string[];
  permissions?: string[];
  user?: string;
  expiresIn?: number;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface System {
  baseUrl: string;
  token(tenant: string, opts?: TokenOptions): Promise<string>;
  /** Sends a request; `body` is JSON-encoded unless it is a string (sent as is). */
  api<T = any>(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  /** An API client bound to one token. */
  as(
    token: string,
  ): <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<ApiResponse<T>>;
  services: { catalog: { rpcUrl: string; adminUrl: string } };
  /** Stops one service (to test failure behaviour); close() tolerates it. */
  stopService(name: "catalog"): Promise<void>;
  close(): Promise<void>;
}

export interface SystemOptions {
  gatewayEnv?: Record<string, string>;
}

export async function startSystem(opts: SystemOptions = {}): Promise<System> {
  const logger = createLogger({ service: "test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const db = await createTestDatabase(inject("adminUrl"), [catalogService]);
  const catalog = await startService(
    catalogService,
    loadServiceConfig(catalogService, {
      DATABASE_URL: db.serviceUrl("catalog"),
      PORT: "0",
      ADMIN_PORT: "0",
      DB_POOL_MAX: "5",
    }),
    { logger },
  );
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), "fop-test-")), "key.json");
  const gateway = await createGateway(
    loadConfig(gatewayConfig, {
      PORT: "0",
      CATALOG_URL: catalog.rpcUrl,
      AUTH_DEV_KEY_FILE: keyFile,
      RATE_LIMIT_ENABLED: "false",
      ...opts.gatewayEnv,
    }),
    { logger },
  );
  await gateway.listen({ host: "127.0.0.1", port: 0 });
  const address = gateway.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  const api: System["api"] = async (method, p, o = {}) => {
    const headers: Record<string, string> = { accept: "application/json", ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${baseUrl}${p}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as never, text };
  };

  return {
    baseUrl,
    token: (tenant, t = {}) =>
      signDevToken(keyFile, {
        tenant,
        sub: t.user ?? `${tenant}-user`,
        username: t.user ?? `${tenant}-user`,
        roles: t.roles ?? (t.permissions ? [] : ["ADMIN"]),
        permissions: t.permissions ?? [],
        expiresIn: t.expiresIn,
      }),
    api,
    as: (token) => (method, p, body, headers) => api(method, p, { token, body, headers }),
    services: { catalog: { rpcUrl: catalog.rpcUrl, adminUrl: catalog.adminUrl } },
    stopService: () => catalog.close(),
    close: async () => {
      await gateway.close();
      await catalog.close();
      await db.drop();
    },
  };
}
