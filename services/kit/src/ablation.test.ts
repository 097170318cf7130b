import { describe, expect, it } from "vitest";
import { ablatedLayers, ablationConfig, ablationWarning } from "./ablation.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { loadServiceConfig, startService } from "./service.ts";

/** The layers a process's environment turns off, as the gateway and every service read it at start. */
const layersOf = (source: Record<string, string | undefined>) =>
  ablatedLayers(loadConfig(ablationConfig, source));

/** The problems starting with `source` reports (none: it starts). */
function refusal(source: Record<string, string | undefined>): string[] {
  try {
    layersOf(source);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

describe("FOP_ABLATE (benchmarks only)", () => {
  it("turns nothing off when unset or empty, with or without FOP_BENCH", () => {
    for (const source of [
      {},
      { FOP_ABLATE: "" },
      { FOP_BENCH: "1" },
      { FOP_BENCH: "0", FOP_ABLATE: " , " },
    ]) {
      expect(layersOf(source).size, JSON.stringify(source)).toBe(0);
    }
    expect(ablationWarning(layersOf({}))).toBeUndefined();
  });

  it("is refused without FOP_BENCH=1: a deployment that names it does not start", () => {
    for (const source of [{ FOP_ABLATE: "auth" }, { FOP_ABLATE: "validation,rpc-http2", FOP_BENCH: "0" }]) {
      const problems = refusal(source);
      expect(problems, JSON.stringify(source)).toHaveLength(1);
      expect(problems[0]).toMatch(/FOP_ABLATE=.* is for benchmarks only: it needs FOP_BENCH=1/);
    }
    // FOP_BENCH itself takes 1 or 0, nothing that merely looks true.
    expect(refusal({ FOP_ABLATE: "auth", FOP_BENCH: "true" })[0]).toMatch(/FOP_BENCH="true" must be 1/);
  });

  it("refuses unknown layer names, naming them and the known ones", () => {
    const problems = refusal({ FOP_BENCH: "1", FOP_ABLATE: "auth,tracing,ratelimit" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /FOP_ABLATE="auth,tracing,ratelimit" names unknown layer\(s\) tracing, ratelimit/,
    );
    expect(problems[0]).toMatch(/known: validation, serialization, auth, rpc-http2, rpc-protobuf/);
  });

  it("with FOP_BENCH=1, turns the named layers off (once each) and says so", () => {
    const layers = layersOf({ FOP_BENCH: "1", FOP_ABLATE: " auth, rpc-protobuf ,auth" });
    expect([...layers]).toEqual(["auth", "rpc-protobuf"]);
    expect(ablationWarning(layers)).toBe(
      "BENCHMARK BUILD: layers turned off (FOP_ABLATE): auth, rpc-protobuf",
    );
  });

  it("a service refuses to start with FOP_ABLATE and no FOP_BENCH, before it opens anything", async () => {
    const mod = { name: "catalog", ports: { rpc: 0, admin: 0 }, config: {} } as const;
    const config = loadServiceConfig(mod, {
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
      RPC_AUTH_KEY: "k".repeat(32),
      FOP_ABLATE: "rpc-http2",
    });
    await expect(startService(mod as never, config)).rejects.toThrow(/needs FOP_BENCH=1/);
  });
});
