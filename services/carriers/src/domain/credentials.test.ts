import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
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
