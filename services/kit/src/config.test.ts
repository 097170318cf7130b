import { describe, expect, it } from "vitest";
import { ConfigError, env, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  const schema = {
    URL: env.url("database"),
    PORT: env.int("port", 8080, 1, 65535),
    DEBUG: env.bool("debug", false),
    MODE: env.oneOf(["a", "b"] as const, "mode", "a"),
    NAME: env.optionalString("name"),
  };

  it("applies fallbacks and parses values", () => {
    expect(loadConfig(schema, { URL: "postgres://x/y", PORT: "9", DEBUG: "yes" })).toEqual({
      URL: "postgres://x/y",
      PORT: 9,
      DEBUG: true,
      MODE: "a",
      NAME: undefined,
    });
  });

  it("names every problem at once", () => {
    let err: ConfigError | undefined;
    try {
      loadConfig(schema, { PORT: "70000", DEBUG: "maybe", MODE: "c" });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.problems).toHaveLength(4);
    expect(err?.message).toMatch(/URL is missing/);
    expect(err?.message).toMatch(/PORT="70000" must be a whole number/);
  });
});
