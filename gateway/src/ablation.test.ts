/**
 * The gateway's benchmark-only switches (FOP_ABLATE, @fop/kit/ablation): refused without FOP_BENCH=1,
 * and each one, when set, really skips its layer's work (and nothing else changes without it).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Ablation, NOTHING_ABLATED } from "@fop/kit/ablation";
import { loadConfig } from "@fop/kit/config";
import { AppError } from "@fop/kit/errors";
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { TEST_RPC_AUTH_KEY } from "@fop/kit/testing/rpc";
import { afterEach, describe, expect, it } from "vitest";
import { buildGateway } from "./app.ts";
import { gatewayConfig } from "./config.ts";
import { createGateway } from "./gateway.ts";

const principal = { tenant: "t1", userId: "u", username: "u", roles: [], permissions: ["PICKJOB_WRITE"] };
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/**
 * A gateway with `ablation` whose picking service answers every create with a stored document and
 * records the tenant header and body it was called with; its log lines go to `lines`.
 */
async function gateway(ablation: Ablation, logLevel = "silent") {
  const calls: { tenant: string | undefined; body: unknown }[] = [];
  const lines: string[] = [];
  const picking = {
    createPickJob: async (req: { body: unknown }, opts: { headers: Record<string, string> }) => {
      calls.push({ tenant: opts.headers["x-fop-tenant"], body: req.body });
      return { pickJob: { id: "j", documentJson: Buffer.from('{"id":"j"}') } };
    },
  };
  const app = await buildGateway({
    logger: createLogger({
      service: "ablation-test",
      level: logLevel,
      destination: { write: (line: string) => void lines.push(line) },
    }),
    ablation,
    metrics: createMetrics("ablation-test"),
    clients: { picking } as never,
    verify: async (token) => {
      if (token !== "good") throw new AppError("unauthenticated", { code: "INVALID_TOKEN", description: "" });
      return principal;
    },
    resolveUrn: async () => "",
    checkServices: async () => ({}),
    publicUrl: "",
  });
  // A route with a compiled response serializer, which drops what its schema does not declare.
  app.get(
    "/serialized",
    {
      config: { auth: false },
      schema: { response: { 200: { type: "object", properties: { declared: { type: "string" } } } } },
    },
    async () => ({ declared: "a", undeclared: "b" }),
  );
  close = () => app.close();
  const create = (body: unknown, token?: string) =>
    app.inject({
      method: "POST",
      url: "/api/pickjobs",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: JSON.stringify(body),
    });
  return { app, calls, lines, create };
}

const invalid = { facilityRef: 5, pickLineItems: "none" };
const requestLines = (lines: string[]) => lines.filter((l) => JSON.parse(l).msg === "request");

describe("FOP_ABLATE in the gateway (benchmarks only)", () => {
  it("is refused without FOP_BENCH=1: the gateway does not start", async () => {
    const config = loadConfig(gatewayConfig, {
      RPC_AUTH_KEY: TEST_RPC_AUTH_KEY,
      AUTH_DEV_KEY_FILE: path.join(mkdtempSync(path.join(tmpdir(), "fop-ablation-")), "key.json"),
      FOP_ABLATE: "auth",
    });
    await expect(createGateway(config)).rejects.toThrow(/needs FOP_BENCH=1/);
    expect(() => loadConfig(gatewayConfig, { FOP_BENCH: "1", FOP_ABLATE: "auth,nonsense" })).toThrow(
      /names unknown layer\(s\) nonsense/,
    );
  });

  // (Two gateways, not one per switch: building one takes seconds.)
  it("with nothing off: bodies validated, tokens required, responses serialized by schema, an access line each", async () => {
    const { app, calls, lines, create } = await gateway(NOTHING_ABLATED, "info");
    expect((await create(invalid, "good")).statusCode).toBe(400);
    expect((await create({}, undefined)).statusCode).toBe(401);
    expect(calls).toEqual([]);
    expect((await app.inject("/serialized")).json()).toEqual({ declared: "a" });
    expect(requestLines(lines)).toHaveLength(2);
  });

  it("validation, auth and serialization off; the access log off by its own setting (LOG_LEVEL=warn)", async () => {
    const { app, calls, lines, create } = await gateway(
      new Set(["validation", "auth", "serialization"]),
      "warn",
    );
    // validation: the body reaches the service as sent, unchecked.
    // auth: the first request's token is verified; later requests run as it, without one.
    expect((await create(invalid, "bad")).statusCode).toBe(401);
    expect((await create(invalid, "good")).statusCode).toBe(201);
    expect((await create(invalid, undefined)).statusCode).toBe(201);
    expect(calls).toEqual([
      { tenant: "t1", body: invalid },
      { tenant: "t1", body: invalid },
    ]);
    // serialization: JSON.stringify, not the compiled serializer (which drops undeclared fields).
    expect((await app.inject("/serialized")).json()).toEqual({ declared: "a", undeclared: "b" });
    expect(requestLines(lines)).toEqual([]);
  });
});
