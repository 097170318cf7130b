/** Helpers for tests that call a service's RPCs (and its use cases) directly. */
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { expect } from "vitest";
import type { RequestContext } from "../context.ts";
import type { Sql, SqlPool } from "../db/sql.ts";

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

/** Expects `call` to fail as a batch of too many ids: InvalidArgument, TOO_MANY_IDS naming `field`. */
export async function expectTooManyIds(call: Promise<unknown>, field: string): Promise<void> {
  const err = ConnectError.from(await call.catch((e: unknown) => e));
  expect(err.code).toBe(Code.InvalidArgument);
  expect(err.findDetails(ErrorDetailSchema)[0]).toMatchObject({ code: "TOO_MANY_IDS", field });
}
