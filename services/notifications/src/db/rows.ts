/** Reading and writing rows: the document plus the columns derived from it. Parameterised SQL only. */
import { type Db, query } from "@fop/kit/db/sql";
import type { NotificationConfig } from "../domain/config.ts";
import type { ConfiguredChannels, SubscribedKind } from "../domain/interest.ts";
import type { StoredNotification } from "../domain/notification.ts";
import type { Subscription } from "../domain/subscription.ts";
import type { JsonObject } from "../domain/types.ts";

// --- configurations (facility_ref '' = the tenant's) ------------------------------------------------

export async function loadConfig(
  db: Db,
  tenant: string,
  facilityRef: string,
  forUpdate = false,
): Promise<NotificationConfig | undefined> {
  const rows = await query<{ doc: NotificationConfig }>(db, {
    text: `select doc from notification_config where tenant_id = $1 and facility_ref = $2${forUpdate ? " for update" : ""}`,
    params: [tenant, facilityRef],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** The stored document as JSON text, for a read that sends it on unparsed. */
export async function loadConfigText(
  db: Db,
  tenant: string,
  facilityRef: string,
): Promise<string | undefined> {
  const rows = await query<{ doc: string }>(db, {
    text: "select doc::text as doc from notification_config where tenant_id = $1 and facility_ref = $2",
    params: [tenant, facilityRef],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** The tenant's configuration and, when given, the facility's (the ones an event of it applies to). */
export async function loadConfigsFor(db: Db, tenant: string, facilityRef: string | undefined) {
  return (
    await query<{ doc: NotificationConfig }>(db, {
      text: "select doc from notification_config where tenant_id = $1 and facility_ref = any($2::text[])",
      params: [tenant, facilityRef ? ["", facilityRef] : [""]],
      prepare: true,
    })
  ).map((r) => r.doc);
}

export async function insertConfigIfAbsent(
  db: Db,
  tenant: string,
  facilityRef: string,
  c: NotificationConfig,
) {
  const rows = await query(db, {
    text: `insert into notification_config (tenant_id, facility_ref, version, doc) values ($1, $2, $3, $4::jsonb)
      on conflict do nothing returning 1`,
    params: [tenant, facilityRef, c.version, JSON.stringify(c)],
    prepare: true,
  });
  return rows.length > 0;
}

export async function updateConfig(db: Db, tenant: string, facilityRef: string, c: NotificationConfig) {
  await query(db, {
    text: "update notification_config set version = $3, doc = $4::jsonb where tenant_id = $1 and facility_ref = $2",
    params: [tenant, facilityRef, c.version, JSON.stringify(c)],
    prepare: true,
  });
}

// --- notifications ------------------------------------------------------------------------------------

/** Inserts the notification unless this event already made one for this channel; true when inserted. */
export async function insertNotification(db: Db, tenant: string, n: StoredNotification): Promise<boolean> {
  const d = n.doc as {
    category: string;
    status: string;
    event: string;
    created: string;
    priority: JsonObject;
  };
  const rows = await query(db, {
    text: `insert into notification (tenant_id, id, event_id, channel_id, event, category, status, priority_label,
        priority_sequence, facility_ref, created, doc)
      values ($1, $2::uuid, $3::uuid, $4, $5, $6, $7, $8, $9, $10, $11::timestamptz, $12::jsonb)
      on conflict (tenant_id, event_id, channel_id) do nothing returning 1`,
    params: [
      tenant,
      n.id,
      n.eventId,
      n.channelId,
      d.event,
      d.category,
      d.status,
      d.priority.label,
      d.priority.sequence,
      n.facilityRef ?? null,
      d.created,
      JSON.stringify(n.doc),
    ],
    prepare: true,
  });
  return rows.length > 0;
}

// --- subscriptions ------------------------------------------------------------------------------------

const SUBSCRIPTION_ROW = "id::text as id, event, secret, doc";

export interface SubscriptionRow {
  id: string;
  event: string;
  secret: Buffer;
  doc: JsonObject;
}

export async function insertSubscription(
  db: Db,
  tenant: string,
  s: Subscription,
  secret: Buffer,
  doc: JsonObject,
) {
  await query(db, {
    text: `insert into subscription (tenant_id, id, event, created, secret, doc)
      values ($1, $2::uuid, $3, $4::timestamptz, $5, $6::jsonb)`,
    params: [tenant, s.id, s.event, s.created, secret, JSON.stringify(doc)],
    prepare: true,
  });
}

export async function countSubscriptions(db: Db, tenant: string, event: string): Promise<number> {
  const rows = await query<{ n: number }>(db, {
    text: "select count(*)::int as n from subscription where tenant_id = $1 and event = $2",
    params: [tenant, event],
    prepare: true,
  });
  return rows[0]?.n ?? 0;
}

/** Serializes subscription writes of one tenant and event (the per-event limit stays exact). */
export async function lockSubscriptionEvent(db: Db, tenant: string, event: string) {
  await query(db, {
    text: "select pg_advisory_xact_lock(hashtextextended($1, 7107))",
    params: [`${event}/${tenant}`],
    prepare: true,
  });
}

/** The tenant's subscriptions to any of `events` (an event's kind and its platform aliases). */
export async function subscriptionsFor(db: Db, tenant: string, events: string[]): Promise<SubscriptionRow[]> {
  return query<SubscriptionRow>(db, {
    text: `select ${SUBSCRIPTION_ROW} from subscription where tenant_id = $1 and event = any($2::text[])`,
    params: [tenant, events],
    prepare: true,
  });
}

export async function loadSubscription(
  db: Db,
  tenant: string,
  id: string,
): Promise<SubscriptionRow | undefined> {
  const rows = await query<SubscriptionRow>(db, {
    text: `select ${SUBSCRIPTION_ROW} from subscription where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

/** The first `size` subscriptions and their count, from one statement (one snapshot: they agree). */
export async function listSubscriptions(db: Db, tenant: string, size: number) {
  const rows = await query<{ doc: JsonObject; total: number }>(db, {
    text: "select doc, count(*) over ()::int as total from subscription where tenant_id = $1 order by id limit $2",
    params: [tenant, size],
    prepare: true,
  });
  return { docs: rows.map((r) => r.doc), total: rows[0]?.total ?? 0 };
}

/** Deletes the subscription and its deliveries still pending; true when it existed. */
export async function deleteSubscription(db: Db, tenant: string, id: string): Promise<boolean> {
  const rows = await query(db, {
    text: "delete from subscription where tenant_id = $1 and id = $2::uuid returning 1",
    params: [tenant, id],
    prepare: true,
  });
  if (rows.length === 0) return false;
  await query(db, {
    text: "delete from delivery where tenant_id = $1 and kind = 'WEBHOOK' and target_id = $2 and state = 'PENDING'",
    params: [tenant, id],
    prepare: true,
  });
  return true;
}

// --- deliveries ---------------------------------------------------------------------------------------

export interface NewDelivery {
  tenant: string;
  kind: "WEBHOOK" | "EMAIL";
  targetId: string;
  eventId: string;
  event: string;
  recipient: string;
  payload: JsonObject;
}

/** Inserts deliveries (due now), skipping any this event already made; returns how many are new. */
export async function insertDeliveries(
  db: Db,
  list: readonly NewDelivery[],
  newId: () => string,
): Promise<number> {
  if (list.length === 0) return 0;
  const rows = await query(db, {
    text: `insert into delivery (id, tenant_id, kind, target_id, event_id, event, recipient, payload, next_attempt_at)
      select u.id, u.tenant, u.kind, u.target, u.event_id, u.event, u.recipient, u.payload, clock_timestamp()
      from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::jsonb[])
        as u(id, tenant, kind, target, event_id, event, recipient, payload)
      on conflict (kind, target_id, event_id, recipient) do nothing returning 1`,
    params: [
      list.map(() => newId()),
      list.map((d) => d.tenant),
      list.map((d) => d.kind),
      list.map((d) => d.targetId),
      list.map((d) => d.eventId),
      list.map((d) => d.event),
      list.map((d) => d.recipient),
      list.map((d) => JSON.stringify(d.payload)),
    ],
    prepare: true,
  });
  return rows.length;
}

export interface DueDelivery {
  id: string;
  tenant_id: string;
  kind: "WEBHOOK" | "EMAIL";
  target_id: string;
  event_id: string;
  event: string;
  recipient: string;
  payload: JsonObject;
  attempts: number;
  /** A webhook's subscription: its sealed secret and headers (null: it was deleted meanwhile). */
  secret: Buffer | null;
  headers: { key: string; value: string }[] | null;
}

/**
 * Claims up to `n` due deliveries: each gets its attempt counted and is leased for `leaseMs` (a
 * process that dies mid-attempt leaves it to be tried again after the lease: at least once). A
 * webhook comes with its subscription's secret and headers, read in the same statement.
 */
export async function claimDue(db: Db, n: number, leaseMs: number): Promise<DueDelivery[]> {
  return query<DueDelivery>(db, {
    text: `with claimed as (
        update delivery d set attempts = d.attempts + 1,
          next_attempt_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
        where d.id in (
          select id from delivery where state = 'PENDING' and next_attempt_at <= clock_timestamp()
          order by next_attempt_at limit $1 for update skip locked)
        returning d.*)
      select c.id::text as id, c.tenant_id, c.kind, c.target_id, c.event_id::text as event_id, c.event,
        c.recipient, c.payload, c.attempts, s.secret, s.doc -> 'target' -> 'headers' as headers
      from claimed c left join subscription s
        on c.kind = 'WEBHOOK' and s.tenant_id = c.tenant_id and s.id::text = c.target_id`,
    params: [n, leaseMs],
    prepare: true,
  });
}

/** Records an attempt's outcome (the row may be gone: its subscription was deleted). */
export async function settleDelivery(
  db: Db,
  id: string,
  o: {
    state: "DELIVERED" | "PENDING" | "DEAD";
    delayMs?: number;
    status?: number | undefined;
    error?: string;
  },
) {
  await query(db, {
    text: `update delivery set state = $2, last_status = $3, last_error = $4,
        next_attempt_at = case when $2 = 'PENDING' then clock_timestamp() + make_interval(secs => $5::double precision / 1000) else next_attempt_at end,
        finished_at = case when $2 = 'PENDING' then null else clock_timestamp() end
      where id = $1::uuid and state = 'PENDING'`,
    params: [id, o.state, o.status ?? null, o.error?.slice(0, 2000) ?? null, o.delayMs ?? 0],
    prepare: true,
  });
}

/** A subscription's dead letters, newest first, and their count. */
export async function listDeadLetters(db: Db, tenant: string, subscriptionId: string, size: number) {
  // One statement, so the page and its count come from one snapshot (a delivery dying between two
  // statements answered total 1 with an empty page).
  const rows = await query<JsonObject & { total: number }>(db, {
    text: `select id::text as id, event_id::text as "eventId", event, recipient as "callbackUrl", attempts,
        last_status as "lastStatus", last_error as "lastError", created, finished_at as "failedAt", payload,
        count(*) over ()::int as total
      from delivery where tenant_id = $1 and kind = 'WEBHOOK' and target_id = $2 and state = 'DEAD'
      order by finished_at desc, id limit $3`,
    params: [tenant, subscriptionId, size],
    prepare: true,
  });
  const total = rows[0]?.total ?? 0;
  return { rows: rows.map(({ total: _, ...r }) => r), total };
}

// --- interest (every tenant at once: the interest index; subscriptions and configurations are few) --

/** The distinct kinds each tenant's subscriptions name. */
export const subscribedKinds = (db: Db) =>
  query<SubscribedKind>(db, {
    text: "select distinct tenant_id as tenant, event from subscription",
    params: [],
    prepare: true,
  });

/** The channels of every configuration (each tenant's and each facility's). */
export const configuredChannels = (db: Db) =>
  query<ConfiguredChannels>(db, {
    text: "select tenant_id as tenant, doc -> 'channels' as channels from notification_config",
    params: [],
    prepare: true,
  });
