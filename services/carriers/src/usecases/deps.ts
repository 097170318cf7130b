import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";
import type { CredentialsCipher } from "../domain/credentials.ts";

/** What the carrier use cases need; service.ts and tests build it. */
export interface CarriersDeps {
  db: SqlPool;
  outbox: Outbox;
  /** Seals carrier credentials at rest (CARRIER_CREDENTIALS_KEY). */
  credentials: CredentialsCipher;
  now: () => Date;
  newId: () => string;
}
