/** Helpers for tests that call a service's RPCs (and its use cases) directly. */
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { expect } from "vitest";
import type { RequestContext } from "../context.ts";
import type { Sql, SqlPool } from "../db/sql.ts";
import { createLogger } from "../logger.ts";
import { createMetrics } from "../metrics.ts";
import {
  componentCredentials,
  type RpcCredentials,
  rpcKeys,
  rpcTokenVerifier,
  signCallerToken,
} from "../rpc/auth.ts";

/** The request context of an RPC caller in `tenant` (no permissions: services trust the gateway's). */
export const rpcContext = (tenant: string): RequestContext => ({
  tenant,
  principal: { userId: "u", username: "u", roles: [], permissions: [] },
  client: { api: "RPC", rawInfo: "test" },
  traceId: "",
});

/** `deps` whose database records every statement it runs (to count round trips). */
export function countingDeps<D extends { db: SqlPool }>(deps: D): { deps: D; statements: Sql[] } {
  const statements: Sql[] = [];
  const db = {
    ...deps.db,
    query: (sql: Sql) => {
      statements.push(sql);
      return deps.db.query(sql);
    },
  } as SqlPool;
  return { deps: { ...deps, db }, statements };
}

/** How `call` failed: its Connect code and error detail (fails the test if it succeeded). */
export async function rpcFailure(call: Promise<unknown>) {
  const err = ConnectError.from(await call.then(() => expect.unreachable()).catch((e: unknown) => e));
  return { code: err.code, detail: err.findDetails(ErrorDetailSchema)[0] };
}

/** Expects `call` to be refused as bad input: InvalidArgument with `code`, naming `field`. */
export async function expectInvalid(call: Promise<unknown>, code: string, field: string): Promise<void> {
  expect(await rpcFailure(call), code).toMatchObject({ code: Code.InvalidArgument, detail: { code, field } });
}

/** Expects `call` to fail as a batch of too many ids: InvalidArgument, TOO_MANY_IDS naming `field`. */
export async function expectTooManyIds(call: Promise<unknown>, field: string): Promise<void> {
  const err = ConnectError.from(await call.catch((e: unknown) => e));
  expect(err.code).toBe(Code.InvalidArgument);
  expect(err.findDetails(ErrorDetailSchema)[0]).toMatchObject({ code: "TOO_MANY_IDS", field });
}

/** The RPC key every test process shares (services, gateway and the tests' own clients). */
export const TEST_RPC_AUTH_KEY = "test-only-rpc-auth-key-0123456789abcdef";
const testKeys = rpcKeys({ RPC_AUTH_KEY: TEST_RPC_AUTH_KEY });
/** A component's credentials ("test"): the tests' clients relay a context like the gateway does. */
export const testCredentials: RpcCredentials = componentCredentials(testKeys, "test");
/** Mints a caller token (an internal team's program) naming `tenants`. */
export const testCallerToken = (caller: string, tenants: string[], expiresInS = 3600): Promise<string> =>
  signCallerToken(testKeys, { caller, tenants, expiresInS });
/** The verifier of a server built in a test (buildRpcServer's `verify`). */
export const testVerifier = rpcTokenVerifier(testKeys);

/** The runtime of an RPC server built in a test (buildRpcServer): silent, always ready, the suite's key. */
export const testRuntime = (service: string) => ({
  service,
  logger: createLogger({ service, level: "silent" }),
  metrics: createMetrics(service),
  ready: async () => true,
  verify: testVerifier,
});
