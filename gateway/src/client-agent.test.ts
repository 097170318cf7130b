import { describe, expect, it } from "vitest";
import { parseClientApp } from "./client-agent.ts";

describe("X-User-Agent", () => {
  it("reads <AppName>/<AppVersion>", () => {
    expect(parseClientApp("PickApp/1.2.3")).toEqual({ name: "PickApp", version: "1.2.3" });
    expect(parseClientApp(" back-office_ui/2024.11.0-rc.1+build7 ")).toEqual({
      name: "back-office_ui",
      version: "2024.11.0-rc.1+build7",
    });
  });

  it("ignores what is absent or malformed", () => {
    for (const bad of [
      undefined,
      "",
      "PickApp",
      "PickApp/",
      "/1.0",
      "Pick App/1.0",
      "a/b/c",
      `A/${"1".repeat(65)}`,
      "Ä/1",
    ]) {
      expect(parseClientApp(bad), String(bad)).toBeUndefined();
    }
    expect(parseClientApp(["A/1", "B/2"])).toBeUndefined();
  });
});
