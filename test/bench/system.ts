/**
 * The system under benchmark, without vitest: a fresh database, the catalog service and the gateway
 * in this process on free ports (rate limiting off, logs silent), and a token signed with a
 * throw-away dev key. Mirrors test/support/system.ts, which reads its admin URL from vitest.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { catalogService } from "@fop/catalog";
import { createGateway, gatewayConfig, signDevToken } from "@fop/gateway";
import { loadConfig } from "@fop/kit/config";
import { createLogger } from "@fop/kit/logger";
import { loadServiceConfig, startService } from "@fop/kit/service";
import { createTestDatabase } from "@fop/kit/testing/db";

export interface BenchSystem {
  baseUrl: string;
  /** A token for `tenant` with the given roles (default ADMIN). */
  token(tenant: string, roles?: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchSystem(adminUrl: string, opts: { dbPoolMax: number }): Promise<BenchSystem> {
  const logger = createLogger({ service: "bench", level: "silent" });
  const db = await createTestDatabase(adminUrl, [catalogService]);
  const keyDir = mkdtempSync(path.join(tmpdir(), "fop-bench-"));
  const keyFile = path.join(keyDir, "key.json");
  let catalog: Awaited<ReturnType<typeof startService>> | undefined;
  let gateway: Awaited<ReturnType<typeof createGateway>> | undefined;
  const close = async () => {
    await gateway?.close();
    await catalog?.close();
    await db.drop();
    rmSync(keyDir, { recursive: true, force: true });
  };
  try {
    catalog = await startService(
      catalogService,
      loadServiceConfig(catalogService, {
        DATABASE_URL: db.serviceUrl("catalog"),
        PORT: "0",
        ADMIN_PORT: "0",
        DB_POOL_MAX: String(opts.dbPoolMax),
        LOG_LEVEL: "silent",
      }),
      { logger },
    );
    gateway = await createGateway(
      loadConfig(gatewayConfig, {
        PORT: "0",
        LOG_LEVEL: "silent",
        CATALOG_URL: catalog.rpcUrl,
        AUTH_DEV_KEY_FILE: keyFile,
        RATE_LIMIT_ENABLED: "false",
      }),
      { logger },
    );
    await gateway.listen({ host: "127.0.0.1", port: 0 });
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
  const address = gateway.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    token: (tenant, roles = ["ADMIN"]) =>
      signDevToken(keyFile, { tenant, sub: `${tenant}-bench`, username: `${tenant}-bench`, roles }),
    close,
  };
}
