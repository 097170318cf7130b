/**
 * The catalogue of domain event kinds: every kind our services record through their outbox (the
 * `type` of the envelope, published on `events.<ENTITY_TYPE>.<TYPE>`), with the entity type it carries and the
 * operation that emits it, plus the kinds the spec names whose producer is outside this platform
 * (orders, routing plans, service jobs, handover jobs). Webhook subscriptions and notification
 * channels validate the kinds they name against it; `event-kinds.test.ts` checks that each of our
 * kinds is really built in its producer's source. Audit emits none (it records all of them).
 *
 * Operations are the REST calls (`{id}` = the path's entity id). A pick run change also emits the
 * pick job kinds of what it does to its jobs (attach/detach: PICK_JOB_UPDATED, START, PICK on FINISH).
 */

/** The service that emits a kind; "external" = a platform process outside our services. */
export type EventProducer =
  | "catalog"
  | "picking"
  | "loadunits"
  | "carriers"
  | "returns"
  | "notifications"
  | "external";

export interface EventKind {
  /** e.g. PICK_JOB_CREATED */
  kind: string;
  producer: EventProducer;
  /** Entity type on the envelope, e.g. PICK_JOB ("" for external kinds whose entity we do not know). */
  entityType: string;
  /** The operation a user performs that emits it, e.g. "POST /api/pickjobs" or "PATCH /api/pickjobs/{id} (ModifyPickJob status PICKED)"; for external kinds, who produces it (e.g. "orders (outside this platform)"). */
  emittedBy: string;
}

const PICK_JOB_ACTIONS = "POST /api/pickjobs/{id}/actions";
const PICK_JOB_PATCH = "PATCH /api/pickjobs/{id}";
const PICK_RUN_ACTIONS = "POST /api/pickruns/{id}/actions";
const PICK_RUN_PATCH = "PATCH /api/pickruns/{id}";
const ITEM_RETURN = "/api/itemreturnjobs/{id}/itemreturns/{itemReturnId}";
const MAPPINGS = "/api/carriers/{id}/configuration/countryservicemappings";
const ORDERS = "orders (outside this platform)";
const ROUTING_PLANS = "routing plans (outside this platform)";

export const EVENT_KINDS: readonly EventKind[] = [
  // catalog: categories, facilities, facility groups
  {
    kind: "CATEGORY_CREATED",
    producer: "catalog",
    entityType: "CATEGORY",
    emittedBy: "POST /api/categories",
  },
  {
    kind: "CATEGORY_UPDATED",
    producer: "catalog",
    entityType: "CATEGORY",
    emittedBy: "PUT /api/categories/{id}",
  },
  {
    kind: "CATEGORY_DELETED",
    producer: "catalog",
    entityType: "CATEGORY",
    emittedBy: "DELETE /api/categories/{id}",
  },
  {
    kind: "FACILITY_CREATED",
    producer: "catalog",
    entityType: "FACILITY",
    emittedBy: "POST /api/facilities",
  },
  {
    kind: "FACILITY_UPDATED",
    producer: "catalog",
    entityType: "FACILITY",
    emittedBy: "PATCH /api/facilities/{id}",
  },
  {
    kind: "FACILITY_DELETED",
    producer: "catalog",
    entityType: "FACILITY",
    emittedBy: "DELETE /api/facilities/{id}",
  },
  {
    kind: "FACILITY_GROUP_CREATED",
    producer: "catalog",
    entityType: "FACILITY_GROUP",
    emittedBy: "POST /api/facilitygroups",
  },
  {
    kind: "FACILITY_GROUP_UPDATED",
    producer: "catalog",
    entityType: "FACILITY_GROUP",
    emittedBy:
      "PATCH /api/facilitygroups/{id}; POST /api/facilitygroups/{id}/actions (ADD_FACILITIES_TO_GROUP, REMOVE_FACILITIES_FROM_GROUP and their VERSIONLESS_ variants, when they change the group); DELETE /api/facilities/{id} (each group the facility was in)",
  },
  {
    kind: "FACILITY_GROUP_DELETED",
    producer: "catalog",
    entityType: "FACILITY_GROUP",
    emittedBy: "DELETE /api/facilitygroups/{id}",
  },

  // picking: pick jobs
  { kind: "PICK_JOB_CREATED", producer: "picking", entityType: "PICK_JOB", emittedBy: "POST /api/pickjobs" },
  {
    kind: "PICK_JOB_STARTED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (START); ${PICK_JOB_PATCH} (ModifyPickJob status IN_PROGRESS from OPEN or PAUSED); pick run START, StartPickRun or a first ModifyPickRunLineItem (each OPEN or PAUSED job of the run)`,
  },
  {
    kind: "PICK_JOB_PAUSED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (PAUSE); ${PICK_JOB_PATCH} (ModifyPickJob status PAUSED)`,
  },
  {
    kind: "PICK_JOB_RESTARTED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (RESTART); ${PICK_JOB_PATCH} (RestartPickJob, or ModifyPickJob status IN_PROGRESS from PICKED, CLOSED or ABORTED)`,
  },
  {
    kind: "PICK_JOB_PICKED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (PICK); ${PICK_JOB_PATCH} (ModifyPickJob status PICKED); pick run FINISH or FinishPickRun (each job of the run)`,
  },
  {
    kind: "PICK_JOB_CLOSED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (CLOSE, something picked); ${PICK_JOB_PATCH} (ModifyPickJob status CLOSED, something picked)`,
  },
  {
    kind: "PICK_JOB_ABORTED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (ABORT, or CLOSE with nothing picked); ${PICK_JOB_PATCH} (AbortPickJob, or ModifyPickJob status CLOSED with nothing picked)`,
  },
  {
    kind: "PICK_JOB_CANCELED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (CANCEL)`,
  },
  {
    kind: "PICK_JOB_OBSOLETE",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (OBSOLETE)`,
  },
  {
    kind: "PICK_JOB_RESET",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (RESET); ${PICK_JOB_PATCH} (ResetPickJob, or ModifyPickJob status OPEN)`,
  },
  {
    kind: "PICK_JOB_UPDATED",
    producer: "picking",
    entityType: "PICK_JOB",
    emittedBy: `${PICK_JOB_ACTIONS} (REPLACE_ASSIGNED_USERS, SPLIT_LINE_ITEMS_PICK_JOB, MERGE_LINE_ITEMS_PICK_JOB, UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES, MODIFY_PICK_JOB_LINE_ITEMS, ADD_TARGET_TIME); ${PICK_JOB_PATCH} (no status transition, or ModifyPickJob status REROUTED, REJECTED, RESTOWED, EXPIRED or WAITING_FOR_INPUT); a pick run attaching, detaching or picking on the job (POST /api/pickruns, CANCEL, REMOVE_PICK_JOB, ModifyPickRunLineItem)`,
  },

  // picking: pick runs
  { kind: "PICK_RUN_CREATED", producer: "picking", entityType: "PICK_RUN", emittedBy: "POST /api/pickruns" },
  {
    kind: "PICK_RUN_STARTED",
    producer: "picking",
    entityType: "PICK_RUN",
    emittedBy: `${PICK_RUN_ACTIONS} (START); ${PICK_RUN_PATCH} (StartPickRun, or ModifyPickRunLineItem on an OPEN run)`,
  },
  {
    kind: "PICK_RUN_PAUSED",
    producer: "picking",
    entityType: "PICK_RUN",
    emittedBy: `${PICK_RUN_ACTIONS} (PAUSE)`,
  },
  {
    kind: "PICK_RUN_RESUMED",
    producer: "picking",
    entityType: "PICK_RUN",
    emittedBy: `${PICK_RUN_ACTIONS} (RESUME)`,
  },
  {
    kind: "PICK_RUN_FINISHED",
    producer: "picking",
    entityType: "PICK_RUN",
    emittedBy: `${PICK_RUN_ACTIONS} (FINISH); ${PICK_RUN_PATCH} (FinishPickRun)`,
  },
  {
    kind: "PICK_RUN_CANCELED",
    producer: "picking",
    entityType: "PICK_RUN",
    emittedBy: `${PICK_RUN_ACTIONS} (CANCEL); ${PICK_RUN_PATCH} (CancelPickRun)`,
  },
  {
    kind: "PICK_RUN_UPDATED",
    producer: "picking",
    entityType: "PICK_RUN",
    emittedBy: `${PICK_RUN_ACTIONS} (TAKE_OVER_PICK_RUN, REMOVE_PICK_JOB, SPLIT_LINES_PICK_RUN); ${PICK_RUN_PATCH} (ModifyPickRunLineItem on a started run); PATCH /api/pickruns/{id}/pickjobs`,
  },

  // loadunits
  {
    kind: "LOAD_UNIT_CREATED",
    producer: "loadunits",
    entityType: "LOAD_UNIT",
    emittedBy: "POST /api/loadunits (one per unit); POST /api/pickjobs/{id}/loadunits",
  },
  {
    kind: "LOAD_UNIT_UPDATED",
    producer: "loadunits",
    entityType: "LOAD_UNIT",
    emittedBy: "POST /api/loadunits/{id}/actions; PATCH /api/loadunits/{id} (deprecated)",
  },
  {
    kind: "LOAD_UNIT_OBSOLETED",
    producer: "loadunits",
    entityType: "LOAD_UNIT",
    emittedBy:
      "DELETE /api/loadunits/{id} (unless already OBSOLETE); DELETE /api/loadunits?pickJobRef=&id= (one per unit)",
  },
  { kind: "STACK_CREATED", producer: "loadunits", entityType: "STACK", emittedBy: "POST /api/stacks" },
  {
    kind: "OPERATIVE_CONTAINER_TYPE_CREATED",
    producer: "loadunits",
    entityType: "OPERATIVE_CONTAINER_TYPE",
    emittedBy: "POST /api/operativecontainertypes",
  },
  {
    kind: "OPERATIVE_CONTAINER_TYPE_UPDATED",
    producer: "loadunits",
    entityType: "OPERATIVE_CONTAINER_TYPE",
    emittedBy: "PATCH /api/operativecontainertypes/{id}; PUT /api/operativecontainertypes/{id}/icon",
  },
  {
    kind: "LOAD_UNIT_TYPE_CREATED",
    producer: "loadunits",
    entityType: "LOAD_UNIT_TYPE",
    emittedBy: "POST /api/loadunittypes (deprecated)",
  },
  {
    kind: "LOAD_UNIT_TYPE_UPDATED",
    producer: "loadunits",
    entityType: "LOAD_UNIT_TYPE",
    emittedBy: "PATCH /api/loadunittypes/{id} (deprecated); PUT /api/loadunittypes/{id}/icon",
  },

  // carriers
  { kind: "CARRIER_CREATED", producer: "carriers", entityType: "CARRIER", emittedBy: "POST /api/carriers" },
  {
    kind: "CARRIER_UPDATED",
    producer: "carriers",
    entityType: "CARRIER",
    emittedBy: "PATCH /api/carriers/{id}",
  },
  {
    kind: "CARRIER_CONFIGURATION_CREATED",
    producer: "carriers",
    entityType: "CARRIER_CONFIGURATION",
    emittedBy:
      "the first GET or PUT /api/carriers/{id}/configuration, call under .../countryservicemappings, or EstimateDeliveryDates RPC for a carrier (the default configuration is created lazily)",
  },
  {
    kind: "CARRIER_CONFIGURATION_UPDATED",
    producer: "carriers",
    entityType: "CARRIER_CONFIGURATION",
    emittedBy: "PUT /api/carriers/{id}/configuration",
  },
  {
    kind: "CARRIER_COUNTRY_SERVICE_MAPPING_CREATED",
    producer: "carriers",
    entityType: "CARRIER_COUNTRY_SERVICE_MAPPING",
    emittedBy: `POST ${MAPPINGS}`,
  },
  {
    kind: "CARRIER_COUNTRY_SERVICE_MAPPING_UPDATED",
    producer: "carriers",
    entityType: "CARRIER_COUNTRY_SERVICE_MAPPING",
    emittedBy: `PATCH ${MAPPINGS}/{mappingId}`,
  },
  {
    kind: "CARRIER_COUNTRY_SERVICE_MAPPING_DELETED",
    producer: "carriers",
    entityType: "CARRIER_COUNTRY_SERVICE_MAPPING",
    emittedBy: `DELETE ${MAPPINGS}/{mappingId}`,
  },
  {
    kind: "TRANSIT_TIME_CONFIGURATION_CREATED",
    producer: "carriers",
    entityType: "TRANSIT_TIME_CONFIGURATION",
    emittedBy: "PUT /api/configurations/transittime (the tenant's first)",
  },
  {
    kind: "TRANSIT_TIME_CONFIGURATION_UPDATED",
    producer: "carriers",
    entityType: "TRANSIT_TIME_CONFIGURATION",
    emittedBy: "PUT /api/configurations/transittime (once one exists)",
  },

  // returns: reasons
  {
    kind: "CANCELATION_REASON_CREATED",
    producer: "returns",
    entityType: "CANCELATION_REASON",
    emittedBy: "POST /api/cancelationreasons (a new text; an existing one answers 303 without an event)",
  },
  {
    kind: "CANCELATION_REASON_UPDATED",
    producer: "returns",
    entityType: "CANCELATION_REASON",
    emittedBy: "PUT /api/cancelationreasons/{id}",
  },
  {
    kind: "CANCELATION_REASON_DELETED",
    producer: "returns",
    entityType: "CANCELATION_REASON",
    emittedBy: "DELETE /api/cancelationreasons/{id}",
  },
  {
    kind: "REROUTE_DESCRIPTION_CREATED",
    producer: "returns",
    entityType: "REROUTE_DESCRIPTION",
    emittedBy: "POST /api/reroutedescriptions (a new text; an existing one answers 303 without an event)",
  },
  {
    kind: "REROUTE_DESCRIPTION_UPDATED",
    producer: "returns",
    entityType: "REROUTE_DESCRIPTION",
    emittedBy: "PUT /api/reroutedescriptions/{id}",
  },
  {
    kind: "REROUTE_DESCRIPTION_DELETED",
    producer: "returns",
    entityType: "REROUTE_DESCRIPTION",
    emittedBy: "DELETE /api/reroutedescriptions/{id}",
  },

  // returns: item return jobs
  {
    kind: "ITEM_RETURN_JOB_CREATED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: "POST /api/itemreturnjobs",
  },
  {
    kind: "ITEM_RETURN_JOB_STARTED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: "POST /api/itemreturnjobs/{id}/actions (StartItemReturnJob)",
  },
  {
    kind: "ITEM_RETURN_JOB_FINISHED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: "POST /api/itemreturnjobs/{id}/actions (FinishItemReturnJob)",
  },
  {
    kind: "ITEM_RETURN_JOB_RESTARTED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: "POST /api/itemreturnjobs/{id}/actions (RestartItemReturnJob)",
  },
  {
    kind: "ITEM_RETURN_JOB_LINE_ITEMS_CHANGED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy:
      "POST /api/itemreturnjobs/{id}/actions (CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB, CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB, REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB)",
  },

  // returns: item returns (entity: the job they are part of)
  {
    kind: "ITEM_RETURN_ADDED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: "POST /api/itemreturnjobs/{id}/itemreturns",
  },
  {
    kind: "ITEM_RETURN_ANNOUNCED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (AnnounceItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_OPENED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (OpenItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_STARTED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (StartItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_PAUSED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (PauseItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_WAITING_FOR_INPUT",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (WaitForInputItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_FINISHED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (FinishItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_CANCELED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/actions (CancelItemReturn)`,
  },
  {
    kind: "ITEM_RETURN_LINE_ITEM_UPDATED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `PATCH ${ITEM_RETURN}/returnedlineitems/{lineItemId} or .../returnednotreturnablelineitems/{lineItemId}`,
  },
  {
    kind: "ITEM_RETURN_LINE_ITEMS_REPLACED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `PUT ${ITEM_RETURN}/returnedlineitems or .../returnednotreturnablelineitems`,
  },
  {
    kind: "ITEM_RETURN_DELETED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `DELETE ${ITEM_RETURN}`,
  },
  {
    kind: "ITEM_RETURN_PARCEL_CREATED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `POST ${ITEM_RETURN}/parcels`,
  },
  {
    kind: "PARCEL_CREATED",
    producer: "returns",
    entityType: "PARCEL",
    emittedBy: `POST ${ITEM_RETURN}/parcels (with ITEM_RETURN_PARCEL_CREATED)`,
  },
  {
    kind: "REFUND_TRIGGERED",
    producer: "returns",
    entityType: "ITEM_RETURN_JOB",
    emittedBy: `the first item return write after which every line item of the job's item returns is decided (ACCEPTED, REJECTED or CANCELED), typically PATCH ${ITEM_RETURN}/returnedlineitems/{lineItemId}; once per job`,
  },

  // picking: the picking configuration (one per tenant)
  {
    kind: "PICKING_CONFIGURATION_CREATED",
    producer: "picking",
    entityType: "PICKING_CONFIGURATION",
    emittedBy: "PATCH /api/configurations/picking (the tenant's first)",
  },
  {
    kind: "PICKING_CONFIGURATION_UPDATED",
    producer: "picking",
    entityType: "PICKING_CONFIGURATION",
    emittedBy: "PATCH /api/configurations/picking (once one exists)",
  },

  // returns: the return configuration (one per tenant)
  {
    kind: "RETURN_CONFIGURATION_CREATED",
    producer: "returns",
    entityType: "RETURN_CONFIGURATION",
    emittedBy: "PUT /api/configurations/return (the tenant's first)",
  },
  {
    kind: "RETURN_CONFIGURATION_UPDATED",
    producer: "returns",
    entityType: "RETURN_CONFIGURATION",
    emittedBy: "PUT /api/configurations/return (once one exists)",
  },

  // returns: the handover configuration (one per tenant: the refuse reasons)
  {
    kind: "HANDOVER_CONFIGURATION_CREATED",
    producer: "returns",
    entityType: "HANDOVER_CONFIGURATION",
    emittedBy: "PUT /api/configurations/handover (the tenant's first)",
  },
  {
    kind: "HANDOVER_CONFIGURATION_UPDATED",
    producer: "returns",
    entityType: "HANDOVER_CONFIGURATION",
    emittedBy: "PUT /api/configurations/handover (once one exists)",
  },

  // notifications (no payload: configurations hold e-mail addresses, subscriptions may hold credentials)
  {
    kind: "NOTIFICATION_CENTER_CONFIG_CREATED",
    producer: "notifications",
    entityType: "NOTIFICATION_CENTER_CONFIG",
    emittedBy:
      "PUT /api/configurations/notifications or PUT /api/facilities/{id}/configurations/notifications (the first)",
  },
  {
    kind: "NOTIFICATION_CENTER_CONFIG_UPDATED",
    producer: "notifications",
    entityType: "NOTIFICATION_CENTER_CONFIG",
    emittedBy:
      "PUT (once one exists), POST .../actions (ADD_CHANNEL, UPDATE_CHANNEL) or DELETE .../channels/{channelId} of either configuration",
  },
  {
    kind: "SUBSCRIPTION_CREATED",
    producer: "notifications",
    entityType: "SUBSCRIPTION",
    emittedBy: "POST /api/subscriptions",
  },
  {
    kind: "SUBSCRIPTION_DELETED",
    producer: "notifications",
    entityType: "SUBSCRIPTION",
    emittedBy: "DELETE /api/subscriptions/{id}",
  },

  // external: named by the spec (notification channels, further public kinds) or the platform's SDK
  { kind: "UPCOMING_TIME_TRIGGERED_REROUTE", producer: "external", entityType: "", emittedBy: ROUTING_PLANS },
  { kind: "ROUTING_PLAN_NOT_ROUTABLE", producer: "external", entityType: "", emittedBy: ROUTING_PLANS },
  { kind: "ROUTING_PLAN_WAITING", producer: "external", entityType: "", emittedBy: ROUTING_PLANS },
  { kind: "ORDER_MODIFIED", producer: "external", entityType: "", emittedBy: ORDERS },
  { kind: "ORDER_UNLOCKED", producer: "external", entityType: "", emittedBy: ORDERS },
  { kind: "LOCKED_ORDER_CREATED", producer: "external", entityType: "", emittedBy: ORDERS },
  { kind: "ORDER_FORCE_CANCELLED", producer: "external", entityType: "", emittedBy: ORDERS },
  { kind: "ORDER_CANCELLED_BY_EXPIRY", producer: "external", entityType: "", emittedBy: ORDERS },
  { kind: "ORDER_CANCELLED", producer: "external", entityType: "", emittedBy: ORDERS },
  {
    kind: "SERVICE_JOB_CREATED",
    producer: "external",
    entityType: "",
    emittedBy: "service jobs (outside this platform)",
  },
  {
    kind: "SERVICE_JOB_FINISHED",
    producer: "external",
    entityType: "",
    emittedBy: "service jobs (outside this platform)",
  },
  {
    kind: "HANDOVERJOB_HANDED_OVER",
    producer: "external",
    entityType: "",
    emittedBy: "handover jobs (outside this platform)",
  },
];

/** The kinds a notification channel (EMAIL/CLIENT) may subscribe to: exactly the spec's list. */
export const NOTIFICATION_CHANNEL_EVENTS = [
  "PICK_JOB_CREATED",
  "UPCOMING_TIME_TRIGGERED_REROUTE",
  "ROUTING_PLAN_NOT_ROUTABLE",
  "ROUTING_PLAN_WAITING",
  "ORDER_MODIFIED",
  "ORDER_UNLOCKED",
  "LOCKED_ORDER_CREATED",
  "ORDER_FORCE_CANCELLED",
  "ORDER_CANCELLED_BY_EXPIRY",
  "ORDER_CANCELLED",
] as const;

export type NotificationChannelEvent = (typeof NOTIFICATION_CHANNEL_EVENTS)[number];

/**
 * Kinds the platform names (its reference, its SDK) that our services emit as finer kinds: a
 * subscription to the platform's kind receives each of ours, under the platform's name, so a client
 * written for the platform gets what it subscribed to.
 */
export const PLATFORM_KIND_ALIASES: Readonly<Record<string, readonly string[]>> = {
  /** fill-ins §17: ItemReturnJobWebHookEvent (ITEM_RETURN_JOB_CREATED / _UPDATED). */
  ITEM_RETURN_JOB_UPDATED: [
    "ITEM_RETURN_JOB_STARTED",
    "ITEM_RETURN_JOB_FINISHED",
    "ITEM_RETURN_JOB_RESTARTED",
    "ITEM_RETURN_JOB_LINE_ITEMS_CHANGED",
    "ITEM_RETURN_ADDED",
    "ITEM_RETURN_ANNOUNCED",
    "ITEM_RETURN_OPENED",
    "ITEM_RETURN_STARTED",
    "ITEM_RETURN_PAUSED",
    "ITEM_RETURN_WAITING_FOR_INPUT",
    "ITEM_RETURN_FINISHED",
    "ITEM_RETURN_CANCELED",
    "ITEM_RETURN_LINE_ITEM_UPDATED",
    "ITEM_RETURN_LINE_ITEMS_REPLACED",
    "ITEM_RETURN_DELETED",
    "ITEM_RETURN_PARCEL_CREATED",
  ],
  /** The SDK's SubscriptionEvent: picking finished is our PICK_JOB_PICKED. */
  PICK_JOB_PICKING_FINISHED: ["PICK_JOB_PICKED"],
};

const aliasesOf = new Map<string, string[]>();
for (const [platform, ours] of Object.entries(PLATFORM_KIND_ALIASES)) {
  for (const kind of ours) aliasesOf.set(kind, [...(aliasesOf.get(kind) ?? []), platform]);
}

/** The kinds a subscription may name to receive an event of `kind`: itself and its platform aliases. */
export const subscribedKindsOf = (kind: string): string[] => [kind, ...(aliasesOf.get(kind) ?? [])];

/**
 * The event types a subscription naming `kind` receives: itself and, for a platform alias, each of
 * our kinds it stands for. The inverse of {@link subscribedKindsOf}: `type` reaches a subscription
 * to `kind` exactly when `kind` is one of `subscribedKindsOf(type)`.
 */
export const eventTypesReaching = (kind: string): string[] => [
  kind,
  ...(Object.hasOwn(PLATFORM_KIND_ALIASES, kind) ? (PLATFORM_KIND_ALIASES[kind] ?? []) : []),
];

const entityOfKind = new Map(EVENT_KINDS.map((e) => [e.kind, e.entityType]));

/** The entity type events of `kind` carry ("" for an external kind, or a kind not in EVENT_KINDS). */
export const entityTypeOfKind = (kind: string): string => entityOfKind.get(kind) ?? "";

/** Every kind a webhook subscription may name (EVENT_KINDS' kinds and the platform aliases, sorted). */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [
  ...EVENT_KINDS.map((e) => e.kind),
  ...Object.keys(PLATFORM_KIND_ALIASES),
].sort();

const subscribable: ReadonlySet<string> = new Set(SUBSCRIBABLE_EVENTS);

/** Whether a webhook subscription may name `kind` (exact, case-sensitive). */
export const isSubscribableEvent = (kind: string): boolean => subscribable.has(kind);
