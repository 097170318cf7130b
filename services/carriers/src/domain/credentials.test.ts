import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { credentialsCipher, parseCredentialsKey } from "./credentials.ts";

const key = randomBytes(32);
const cipher = credentialsCipher(key);
const secret = { key: "GLS", username: "u", password: "s3cret-password" };

it("round-trips, never holds the plain text, and seals the same value differently each time", () => {
  const sealed = cipher.seal("acme", "carrier-1", secret);
  expect(cipher.open("acme", "carrier-1", sealed)).toEqual(secret);
  expect(sealed.includes("s3cret-password")).toBe(false);
  expect(sealed.equals(cipher.seal("acme", "carrier-1", secret))).toBe(false);
});

it("does not open for another tenant, another carrier, another key, or a changed value", () => {
  const sealed = cipher.seal("acme", "carrier-1", secret);
  expect(() => cipher.open("globex", "carrier-1", sealed)).toThrow();
  expect(() => cipher.open("acme", "carrier-2", sealed)).toThrow();
  expect(() => credentialsCipher(randomBytes(32)).open("acme", "carrier-1", sealed)).toThrow();
  const flipped = Buffer.from(sealed);
  flipped[flipped.length - 1]! ^= 1;
  expect(() => cipher.open("acme", "carrier-1", flipped)).toThrow();
  expect(() => cipher.open("acme", "carrier-1", sealed.subarray(0, 20))).toThrow(/format/);
  const otherFormat = Buffer.from(sealed);
  otherFormat[0] = 2;
  expect(() => cipher.open("acme", "carrier-1", otherFormat)).toThrow(/format/);
});

it("takes a 32-byte base64 key only", () => {
  expect(parseCredentialsKey(key.toString("base64")).equals(key)).toBe(true);
  expect(() => parseCredentialsKey(randomBytes(16).toString("base64"))).toThrow(/32 bytes/);
  expect(() => parseCredentialsKey("not base64 at all")).toThrow(/32 bytes/);
});

describe("sealed credentials", () => {
  const long = { key: "DHL_V2", username: "user-7f3a9c2e", apiKey: "api-key-5b8d1e4f9a", pin: "pässwört-🔑" };
  const HEADER = 1 + 12 + 16;

  it("round-trips any JSON object, also non-ASCII", () => {
    const sealed = cipher.seal("t1", "c1", long);
    expect(sealed[0]).toBe(1);
    expect(sealed.length).toBeGreaterThan(HEADER);
    expect(cipher.open("t1", "c1", sealed)).toEqual(long);
    expect(cipher.open("t1", "c1", cipher.seal("t1", "c1", {}))).toEqual({});
  });

  it("the sealed value contains none of the plain values, as text or as JSON", () => {
    const sealed = cipher.seal("t1", "c1", long);
    for (const value of [...Object.values(long), JSON.stringify(long)]) {
      expect(sealed.includes(Buffer.from(value, "utf8")), value).toBe(false);
    }
  });

  it("each seal has its own IV: same value, different sealed bytes, both open", () => {
    const a = cipher.seal("t1", "c1", long);
    const b = cipher.seal("t1", "c1", long);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.equals(b)).toBe(false);
    expect(cipher.open("t1", "c1", a)).toEqual(cipher.open("t1", "c1", b));
  });

  it.each([
    ["the IV", 1],
    ["the tag", 1 + 12],
    ["the last tag byte", HEADER - 1],
    ["the ciphertext", HEADER],
  ])("a flipped bit in %s does not open", (_, index) => {
    const sealed = cipher.seal("t1", "c1", long);
    const changed = Buffer.from(sealed);
    changed[index]! ^= 0x80;
    expect(() => cipher.open("t1", "c1", changed)).toThrow();
  });

  it("the wrong tenant or carrier does not open, also when the two are shifted", () => {
    const sealed = cipher.seal("tenant", "carrier", long);
    expect(() => cipher.open("tenant", "carrier2", sealed)).toThrow();
    expect(() => cipher.open("tenant2", "carrier", sealed)).toThrow();
    expect(() => cipher.open("carrier", "tenant", sealed)).toThrow();
    expect(() => cipher.open("tenantc", "arrier", sealed)).toThrow();
  });

  it("another 32-byte key does not open", () => {
    const sealed = cipher.seal("t1", "c1", long);
    const other = Buffer.from(key);
    other[31]! ^= 1;
    expect(() => credentialsCipher(other).open("t1", "c1", sealed)).toThrow();
    expect(credentialsCipher(Buffer.from(key)).open("t1", "c1", sealed)).toEqual(long);
  });

  it("a truncated value does not open; shorter than the header or another format byte: unknown format", () => {
    const sealed = cipher.seal("t1", "c1", long);
    expect(() => cipher.open("t1", "c1", sealed.subarray(0, sealed.length - 1))).toThrow();
    expect(() => cipher.open("t1", "c1", sealed.subarray(0, HEADER))).toThrow();
    for (const short of [Buffer.alloc(0), sealed.subarray(0, 1), sealed.subarray(0, HEADER - 1)]) {
      expect(() => cipher.open("t1", "c1", short)).toThrow(/unknown sealed value format/);
    }
    for (const format of [0, 2, 255]) {
      const other = Buffer.from(sealed);
      other[0] = format;
      expect(() => cipher.open("t1", "c1", other)).toThrow(/unknown sealed value format/);
    }
  });
});

describe("parseCredentialsKey", () => {
  it("takes the 32 bytes of a base64 key", () => {
    const k = randomBytes(32);
    expect(parseCredentialsKey(k.toString("base64"))).toEqual(k);
  });

  it.each([
    ["16 bytes", randomBytes(16).toString("base64")],
    ["31 bytes", randomBytes(31).toString("base64")],
    ["33 bytes", randomBytes(33).toString("base64")],
    ["the hex form of 32 bytes", randomBytes(32).toString("hex")],
    ["an empty text", ""],
    ["garbage", "!!! not a key !!!"],
  ])("refuses %s", (_, text) => {
    expect(() => parseCredentialsKey(text)).toThrow(/32 bytes/);
  });
});
