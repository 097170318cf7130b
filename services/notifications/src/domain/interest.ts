/**
 * Who wants which events: from each tenant's webhook subscriptions (the kinds they name; a platform
 * alias such as PICK_JOB_PICKING_FINISHED stands for our finer kinds) and notification center
 * configurations (the events of their enabled channels, in the tenant's configuration or any of its
 * facilities'), the event TYPES, as they travel on the stream, from which dispatch can make anything
 * for that tenant. An event of any other type makes no delivery and no notification, so dispatch may
 * skip it without looking at the database. Pure.
 *
 * Per tenant, not per facility: a facility's channel makes its kinds wanted for the whole tenant
 * (dispatch then finds nothing for the other facilities' events), which costs a query, never an event.
 */
import { eventTypesReaching } from "@fop/contracts/event-kinds";
import type { Channel } from "./config.ts";

/** A kind a tenant's webhook subscription names (one row per subscription, or per distinct kind). */
export interface SubscribedKind {
  tenant: string;
  event: string;
}

/** The channels of one configuration of a tenant (its own or a facility's). */
export interface ConfiguredChannels {
  tenant: string;
  channels: readonly Pick<Channel, "enabled" | "events">[];
}

/** The event types a configuration's channels make wanted: those of its enabled channels. */
export const typesOfChannels = (channels: readonly Pick<Channel, "enabled" | "events">[]): string[] =>
  channels.flatMap((ch) => (ch.enabled ? ch.events : []));

/** The event types each tenant wants, and those any tenant wants. */
export interface Interest {
  readonly byTenant: ReadonlyMap<string, ReadonlySet<string>>;
  readonly anyTenant: ReadonlySet<string>;
}

export function buildInterest(
  subscriptions: Iterable<SubscribedKind>,
  configs: Iterable<ConfiguredChannels>,
): Interest {
  const byTenant = new Map<string, Set<string>>();
  const anyTenant = new Set<string>();
  const add = (tenant: string, types: Iterable<string>) => {
    let set = byTenant.get(tenant);
    if (!set) {
      set = new Set();
      byTenant.set(tenant, set);
    }
    for (const t of types) {
      set.add(t);
      anyTenant.add(t);
    }
  };
  for (const s of subscriptions) add(s.tenant, eventTypesReaching(s.event));
  for (const c of configs) add(c.tenant, typesOfChannels(c.channels));
  return { byTenant, anyTenant };
}

/** Whether an event of `type` can make a delivery or notification for `tenant`. */
export const wants = (interest: Interest, tenant: string, type: string): boolean =>
  interest.byTenant.get(tenant)?.has(type) === true;

/** Whether an event of `type` can make anything for some tenant. */
export const wantedByAnyone = (interest: Interest, type: string): boolean => interest.anyTenant.has(type);
