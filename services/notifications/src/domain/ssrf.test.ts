import { describe, expect, it } from "vitest";
import {
  ADDRESS_REFUSED,
  addressGuard,
  callbackUrlProblem,
  checkCallbackUrl,
  type Resolve,
  type TargetPolicy,
} from "./ssrf.ts";

/** The two 16-bit words of a dotted IPv4 address, in hex. */
const hexWords = (dotted: string): [string, string] => {
  const [a, b, c, d] = dotted.split(".").map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};

/** An address of the local-use NAT64 prefix 64:ff9b:1::/48 carrying `ipv4` under prefix length `len` (RFC 6052 2.2). */
function localNat64(ipv4: string, len: 48 | 56 | 64 | 96): string {
  const bytes = [0, 0x64, 0xff, 0x9b, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const at = { 48: [6, 7, 9, 10], 56: [7, 9, 10, 11], 64: [9, 10, 11, 12], 96: [12, 13, 14, 15] }[len];
  ipv4.split(".").forEach((octet, i) => {
    bytes[at[i] as number] = Number(octet);
  });
  const words = [];
  for (let i = 0; i < 16; i += 2)
    words.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return words.join(":");
}

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
    // Special-purpose ranges beyond the private ones.
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "192.88.99.1",
    "2001:db8::1",
    "3fff::1",
    "fec0::1",
    "100::1",
    "2001:2::1",
    // Teredo (2001::/32) hides its IPv4 addresses: refused whatever they are.
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
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
    // IPv6 carrying a public IPv4 address is judged by that address.
    "::ffff:0808:0808",
    "64:ff9b::808:808",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
    "2002:808:808:1:2:3:4:5",
    "::ffff:0:808:808",
  ])("allows %s", (a) => {
    expect(guard(a)).toBe(true);
  });

  // Each IPv6 form that carries an IPv4 address, with a refused IPv4 address in it, in the spellings
  // URL parsing and DNS give (compressed hex) and the dotted one.
  describe.each([
    "127.0.0.1",
    "10.0.0.1",
    "169.254.169.254",
    "192.168.1.1",
    "172.16.0.1",
    "100.64.0.1",
    "0.0.0.0",
  ])("the IPv4 address %s carried in IPv6", (dotted) => {
    const [hi, lo] = hexWords(dotted);
    it.each([
      ["IPv4-compatible ::/96", `::${hi}:${lo}`],
      ["IPv4-compatible ::/96, dotted", `::${dotted}`],
      ["IPv4-compatible, in full", `0:0:0:0:0:0:${dotted}`],
      ["IPv4-mapped ::ffff:0:0/96", `::ffff:${hi}:${lo}`],
      ["IPv4-mapped, in full", `0:0:0:0:0:ffff:${dotted}`],
      ["IPv4-mapped, upper case", `::FFFF:${hi.toUpperCase()}:${lo.toUpperCase()}`],
      ["IPv4-translated ::ffff:0:0:0/96", `::ffff:0:${hi}:${lo}`],
      ["NAT64 64:ff9b::/96", `64:ff9b::${hi}:${lo}`],
      ["NAT64 64:ff9b::/96, dotted", `64:ff9b::${dotted}`],
      ["NAT64 local-use 64:ff9b:1::/48, prefix /48", localNat64(dotted, 48)],
      ["NAT64 local-use, prefix /56", localNat64(dotted, 56)],
      ["NAT64 local-use, prefix /64", localNat64(dotted, 64)],
      ["NAT64 local-use, prefix /96", localNat64(dotted, 96)],
      ["NAT64 local-use, prefix /96, dotted", `64:ff9b:1::${dotted}`],
      ["6to4 2002::/16", `2002:${hi}:${lo}::1`],
      ["6to4, with a host part", `2002:${hi}:${lo}:1:2:3:4:5`],
    ])("refuses %s: %s", (_form, address) => {
      expect(guard(address)).toBe(false);
    });
  });

  it("judges the local-use NAT64 prefix under every layout: a refused address in any refuses", () => {
    // 10.0.0.1 at the /48 layout (bits 48-63 0a00, u octet, then 0001); /96 reads 0.0.0.0 too.
    expect(guard("64:ff9b:1:a00:1:100::")).toBe(false);
    // 8.8.8.8 at the /64 layout; the /48 layout reads 0.0.0.8: refused, fail closed.
    expect(guard(localNat64("8.8.8.8", 64))).toBe(false);
    // Public under every layout.
    expect(guard("64:ff9b:1:808:808:808:808:808")).toBe(true);
  });

  it("an allowed range is judged on the carried IPv4 address too", () => {
    const g = addressGuard({ allowHttp: false, allowedCidrs: ["127.0.0.0/8"] });
    expect(g("::ffff:7f00:1")).toBe(true);
    expect(g("64:ff9b::7f00:1")).toBe(true);
    expect(g("64:ff9b::a00:1")).toBe(false);
    expect(g("2002:a00:1::")).toBe(false);
  });

  it("refuses what is not an IP address", () => {
    for (const a of [
      "",
      "localhost",
      "example.com",
      "999.1.1.1",
      "[::1]",
      "0x7f.1",
      "2130706433",
      "010.0.0.1",
    ])
      expect(guard(a), a).toBe(false);
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
      "https://0177.0.0.1/",
      "https://127.1/",
      "https://0x7f000001/",
      "https://%31%32%37.0.0.1/",
      "https://[::ffff:7f00:1]/",
      "https://[0:0:0:0:0:ffff:127.0.0.1]/",
      "https://[::ffff:127.0.0.1]:8443/x",
      "https://[::127.0.0.1]/",
      "https://[::7f00:1]/",
      "https://[64:ff9b::169.254.169.254]/latest/meta-data",
      "https://[64:ff9b::a9fe:a9fe]/",
      "https://[64:ff9b:1::a00:1]/",
      "https://[2002:a9fe:a9fe::]/",
      "https://[2002:c0a8:101::1]/",
      "https://[::ffff:0:a00:1]/",
      "https://[::]/",
      "https://[0::1]/",
    ]) {
      expect(callbackUrlProblem(u, strict, guard), u).toBe(ADDRESS_REFUSED);
    }
  });

  it("refuses localhost unless 127.0.0.1 is allowed", () => {
    for (const u of ["https://localhost/", "https://LOCALHOST:8443/", "https://api.localhost/"]) {
      expect(callbackUrlProblem(u, strict, guard), u).toBe(ADDRESS_REFUSED);
    }
    expect(callbackUrlProblem("http://localhost:3000/in", dev, devGuard)).toBeUndefined();
    expect(callbackUrlProblem("http://127.0.0.1:3000/in", dev, devGuard)).toBeUndefined();
    expect(callbackUrlProblem("http://10.0.0.1:3000/in", dev, devGuard)).toBeDefined();
  });

  it("refuses port 0, in any spelling", () => {
    for (const u of [
      "https://hooks.example.com:0/in",
      "https://hooks.example.com:00/",
      "https://8.8.8.8:0/",
    ]) {
      expect(callbackUrlProblem(u, strict, guard), u).toBe("must not name port 0");
    }
    expect(callbackUrlProblem("https://hooks.example.com:1/in", strict, guard)).toBeUndefined();
  });
});

describe("checkCallbackUrl (with a resolver the test controls: no DNS)", () => {
  const guard = addressGuard(strict);
  const names: Record<string, string[]> = {
    "public.example": ["8.8.8.8", "2001:4860::8888"],
    "private.example": ["10.0.0.7"],
    "metadata.example": ["169.254.169.254"],
    "mixed.example": ["8.8.8.8", "192.168.0.1"],
    "mapped.example": ["::ffff:a00:7"],
    "nat64.example": ["64:ff9b::a9fe:a9fe"],
    "nat64-public.example": ["64:ff9b::808:808"],
    "sixtofour.example": ["2002:7f00:1::1"],
    "empty.example": [],
  };
  const asked: string[] = [];
  const resolve: Resolve = async (host) => {
    asked.push(host);
    const found = names[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  const check = (url: string) => checkCallbackUrl(url, strict, guard, resolve);

  it.each([
    "https://public.example/in",
    "https://PUBLIC.example./in",
    "https://nat64-public.example/in",
    "https://8.8.8.8/in",
  ])("accepts %s", async (url) => {
    expect(await check(url)).toBeUndefined();
  });

  it.each([
    "https://private.example/in",
    "https://metadata.example/latest",
    "https://mixed.example/",
    "https://mapped.example/",
    "https://nat64.example/",
    "https://sixtofour.example/",
    "https://empty.example/",
    "https://does-not-resolve.example/",
    "https://10.0.0.1/",
    "https://[64:ff9b::a00:1]/",
  ])("refuses %s with the one message (resolving or not, private or not)", async (url) => {
    expect(await check(url)).toBe(ADDRESS_REFUSED);
  });

  it("does not ask the resolver about a literal address or a URL refused already", async () => {
    asked.length = 0;
    await check("https://8.8.8.8/");
    await check("https://[2001:4860::8888]/");
    await check("http://public.example/");
    await check("https://public.example:0/");
    expect(asked).toEqual([]);
    await check("https://public.example/");
    expect(asked).toEqual(["public.example"]);
  });
});
