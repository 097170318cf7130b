import { describe, expect, it } from "vitest";
import { addressGuard, callbackUrlProblem, type TargetPolicy } from "./ssrf.ts";

const strict: TargetPolicy = { allowHttp: false, allowedCidrs: [] };
const dev: TargetPolicy = { allowHttp: true, allowedCidrs: ["127.0.0.0/8", "::1/128"] };

describe("addressGuard", () => {
  const guard = addressGuard(strict);

  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:10.0.0.1",
    "::ffff:127.0.0.1",
    "::FFFF:169.254.169.254",
    "::ffff:a00:1",
  ])("refuses %s", (a) => {
    expect(guard(a)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2001:4860::8888",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
  ])("allows %s", (a) => {
    expect(guard(a)).toBe(true);
  });

  it("refuses what is not an IP address", () => {
    for (const a of ["", "localhost", "example.com", "999.1.1.1", "[::1]"]) expect(guard(a)).toBe(false);
  });

  it("allows an explicitly allowed range, and only that range", () => {
    const g = addressGuard({ allowHttp: false, allowedCidrs: ["127.0.0.0/8"] });
    expect(g("127.0.0.1")).toBe(true);
    expect(g("::ffff:127.0.0.1")).toBe(true);
    expect(g("10.0.0.1")).toBe(false);
    expect(g("::1")).toBe(false);
    expect(g("8.8.8.8")).toBe(true);
    const v6 = addressGuard({ allowHttp: false, allowedCidrs: [" fd00::/8 "] });
    expect(v6("fd00::1")).toBe(true);
    expect(v6("fc00::1")).toBe(false);
  });

  it.each([
    "127.0.0.0",
    "127.0.0.0/33",
    "::/129",
    "nope/8",
    "10.0.0.0/x",
    "/8",
    "10.0.0.0/-1",
    "10.0.0.0/8.5",
    "",
  ])("throws on the malformed CIDR %j", (cidr) => {
    expect(() => addressGuard({ allowHttp: false, allowedCidrs: [cidr] })).toThrow(/not a CIDR range/);
  });
});

describe("callbackUrlProblem", () => {
  const guard = addressGuard(strict);
  const devGuard = addressGuard(dev);

  it("accepts a public https URL", () => {
    expect(callbackUrlProblem("https://hooks.example.com/in?x=1", strict, guard)).toBeUndefined();
    expect(callbackUrlProblem("https://8.8.8.8:8443/in", strict, guard)).toBeUndefined();
    expect(callbackUrlProblem("https://[2001:4860::8888]/in", strict, guard)).toBeUndefined();
  });

  it("refuses http unless allowed, and other schemes always", () => {
    expect(callbackUrlProblem("http://hooks.example.com/in", strict, guard)).toBe("must be an https URL");
    expect(
      callbackUrlProblem("http://hooks.example.com/in", { ...strict, allowHttp: true }, guard),
    ).toBeUndefined();
    expect(callbackUrlProblem("ftp://hooks.example.com/in", strict, guard)).toBe("must be an https URL");
    expect(callbackUrlProblem("ftp://hooks.example.com/in", dev, devGuard)).toBe(
      "must be an http or https URL",
    );
    expect(callbackUrlProblem("file:///etc/passwd", dev, devGuard)).toBeDefined();
  });

  it("refuses credentials in the URL", () => {
    expect(callbackUrlProblem("https://user:pw@hooks.example.com/", strict, guard)).toMatch(/credentials/);
    expect(callbackUrlProblem("https://user@hooks.example.com/", strict, guard)).toMatch(/credentials/);
  });

  it("refuses something that is not an absolute URL", () => {
    for (const u of ["", "not a url", "/relative/path", "hooks.example.com/in"]) {
      expect(callbackUrlProblem(u, strict, guard)).toBe("must be an absolute URL");
    }
  });

  it("refuses literal private, loopback and reserved addresses in any spelling", () => {
    for (const u of [
      "https://127.0.0.1/",
      "https://10.1.2.3:8443/x",
      "https://169.254.169.254/latest/meta-data",
      "https://192.168.0.10/",
      "https://[::1]/",
      "https://[fe80::1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://0/",
    ]) {
      expect(callbackUrlProblem(u, strict, guard), u).toBe(
        "must not point at a private, loopback or reserved address",
      );
    }
  });

  it("refuses localhost unless 127.0.0.1 is allowed", () => {
    for (const u of ["https://localhost/", "https://LOCALHOST:8443/", "https://api.localhost/"]) {
      expect(callbackUrlProblem(u, strict, guard), u).toBe(
        "must not point at a private, loopback or reserved address",
      );
    }
    expect(callbackUrlProblem("http://localhost:3000/in", dev, devGuard)).toBeUndefined();
    expect(callbackUrlProblem("http://127.0.0.1:3000/in", dev, devGuard)).toBeUndefined();
    expect(callbackUrlProblem("http://10.0.0.1:3000/in", dev, devGuard)).toBeDefined();
  });
});
