/**
 * Secrets at rest (carrier credentials, webhook signing secrets): AES-256-GCM under a 32-byte key,
 * bound by additional authenticated data to what they belong to (purpose, tenant, row id), so a
 * sealed value copied to another row or tenant does not open. Sealed form: 0x01 | 12-byte IV |
 * 16-byte tag | ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealer {
  seal(binding: readonly string[], plain: string): Buffer;
  /** The plain text, or an Error when the value was sealed under another key or for another binding. */
  open(binding: readonly string[], sealed: Buffer): string;
}

/** The key from its base64 text (32 bytes); throws naming `envName` otherwise. */
export function parseSealKey(base64: string, envName: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32) {
    throw new Error(`${envName} must be 32 bytes, base64-encoded (openssl rand -base64 32)`);
  }
  return key;
}

/** A sealer for one `purpose` (part of every value's authenticated data). */
export function sealer(key: Buffer, purpose: string): Sealer {
  const aad = (binding: readonly string[]) => Buffer.from([purpose, ...binding].join("\0"));
  return {
    seal(binding, plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad(binding));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body]);
    },
    open(binding, sealed) {
      if (sealed[0] !== FORMAT || sealed.length < 1 + IV_BYTES + TAG_BYTES) {
        throw new Error("unknown sealed value format");
      }
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(aad(binding));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}
