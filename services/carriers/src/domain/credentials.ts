/**
 * Carrier credentials at rest: AES-256-GCM under CARRIER_CREDENTIALS_KEY, bound to the tenant and
 * carrier they belong to (additional authenticated data), so a sealed value copied to another
 * row or tenant does not open. Sealed form: 0x01 | 12-byte IV | 16-byte tag | ciphertext.
 * Nothing but this module sees the plain credentials; no response or event carries them.
 */
import { parseSealKey, sealer } from "@fop/kit/seal";
import type { JsonObject } from "./types.ts";

export interface CredentialsCipher {
  seal(tenant: string, carrierId: string, credentials: JsonObject): Buffer;
  /** The credentials, or an Error when the value was sealed under another key or for another row. */
  open(tenant: string, carrierId: string, sealed: Buffer): JsonObject;
}

/** The key from its base64 text (32 bytes); throws with the reason otherwise. */
export const parseCredentialsKey = (base64: string): Buffer =>
  parseSealKey(base64, "CARRIER_CREDENTIALS_KEY");

/** kit/seal.ts with the purpose "carrier-credentials", bound to tenant and carrier. */
export function credentialsCipher(key: Buffer): CredentialsCipher {
  const s = sealer(key, "carrier-credentials");
  return {
    seal: (tenant, carrierId, credentials) => s.seal([tenant, carrierId], JSON.stringify(credentials)),
    open: (tenant, carrierId, sealed) => JSON.parse(s.open([tenant, carrierId], sealed)) as JsonObject,
  };
}
