/**
 * Carrier credentials at rest: AES-256-GCM under CARRIER_CREDENTIALS_KEY, bound to the tenant and
 * carrier they belong to (additional authenticated data), so a sealed value copied to another
 * row or tenant does not open. Sealed form: 0x01 | 12-byte IV | 16-byte tag | ciphertext.
 * Nothing but this module sees the plain credentials; no response or event carries them.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { JsonObject } from "./types.ts";

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface CredentialsCipher {
  seal(tenant: string, carrierId: string, credentials: JsonObject): Buffer;
  /** The credentials, or an Error when the value was sealed under another key or for another row. */
  open(tenant: string, carrierId: string, sealed: Buffer): JsonObject;
}

const aad = (tenant: string, carrierId: string) =>
  Buffer.from(`carrier-credentials\0${tenant}\0${carrierId}`);

/** The key from its base64 text (32 bytes); throws with the reason otherwise. */
export function parseCredentialsKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32) {
    throw new Error("CARRIER_CREDENTIALS_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32)");
  }
  return key;
}

export function credentialsCipher(key: Buffer): CredentialsCipher {
  return {
    seal(tenant, carrierId, credentials) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad(tenant, carrierId));
      const body = Buffer.concat([cipher.update(JSON.stringify(credentials), "utf8"), cipher.final()]);
      return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body]);
    },
    open(tenant, carrierId, sealed) {
      if (sealed[0] !== FORMAT || sealed.length < 1 + IV_BYTES + TAG_BYTES) {
        throw new Error("unknown sealed credentials format");
      }
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(aad(tenant, carrierId));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([
        decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
      return JSON.parse(plain.toString("utf8")) as JsonObject;
    },
  };
}
