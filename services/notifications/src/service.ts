/**
 * The notifications service as the kit runs it: RPC, the outbox relay, the interest index (which
 * event types each tenant wants), the dispatch consumer (every event -> notifications and
 * deliveries) and the delivery worker (webhooks and e-mails).
 */

import { randomBytes } from "node:crypto";
import { catalogFacilities, facilitiesConfig } from "@fop/contracts/clients/facilities";
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import { eventConsumer, type LanedConsumer } from "@fop/kit/events/consumer";
import { parseSealKey, sealer } from "@fop/kit/seal";
import type { ServiceModule } from "@fop/kit/service";
import { migrations, SCHEMA } from "./db/orm.ts";
import { liveNotifications, livePublisher } from "./delivery/live.ts";
import { smtpMailer } from "./delivery/mailer.ts";
import { hostResolver, parseHosts } from "./delivery/resolve.ts";
import { webhookSender } from "./delivery/webhook.ts";
import { type DeliveryWorker, deliveryWorker } from "./delivery/worker.ts";
import { addressGuard, checkCallbackUrl, type TargetPolicy } from "./domain/ssrf.ts";
import { notificationRoutes } from "./rpc/routes.ts";
import type { NotificationsDeps } from "./usecases/deps.ts";
import { dispatchEvent } from "./usecases/dispatch.ts";
import { dispatchLanes, interestIndex, interestSubject, loadInterest } from "./usecases/interest-index.ts";

/** Loopback ranges webhooks may reach in development (NODE_ENV=development). */
const DEVELOPMENT_CIDRS = "127.0.0.0/8,::1/128";

const config = {
  ...facilitiesConfig,
  NODE_ENV: env.optionalString(
    "`development` turns WEBHOOK_ALLOW_HTTP on and lets WEBHOOK_ALLOWED_CIDRS default to loopback (npm start and the tests set both explicitly)",
  ),
  SMTP_URL: env.optionalString(
    "SMTP server for notification e-mails, e.g. smtp://127.0.0.1:2525 or smtps://user:pass@mail.example.com (unset: EMAIL channels send nothing)",
  ),
  MAIL_FROM: env.string("sender of notification e-mails", "Fulfillment Platform <notifications@localhost>"),
  WEBHOOK_SECRETS_KEY: env.optionalString(
    "AES-256-GCM key sealing webhook signing secrets at rest, base64 of 32 bytes (unset: a random one per process, so subscriptions made now cannot be signed for after a restart; production must set it)",
  ),
  WEBHOOK_ALLOW_HTTP: {
    ...env.bool("callback URLs may be plain http (default: only in development)"),
    optional: true as const,
  },
  WEBHOOK_ALLOWED_CIDRS: env.optionalString(
    `comma-separated private ranges webhooks may still reach, e.g. 10.20.0.0/16 (default: none; ${DEVELOPMENT_CIDRS} in development)`,
  ),
  WEBHOOK_HOSTS: {
    description:
      "comma-separated name=address entries webhook host names resolve to instead of DNS, e.g. hooks.internal=10.20.0.5 (the addresses still pass the SSRF rules; default: none)",
    parse: parseHosts,
    fallback: parseHosts(""),
  },
  WEBHOOK_TIMEOUT_MS: env.int("one webhook or e-mail attempt's time limit", 10_000, 100, 120_000),
  DELIVERY_MAX_ATTEMPTS: env.int("attempts per delivery before it becomes a dead letter", 8, 1, 100),
  DELIVERY_RETRY_BASE_MS: env.int(
    "delay before the first retry; doubled per further retry",
    5_000,
    1,
    3_600_000,
  ),
  DELIVERY_RETRY_MAX_MS: env.int("longest delay between two attempts", 3_600_000, 1, 86_400_000),
  DELIVERY_CONCURRENCY: env.int("attempts running at once per process", 16, 1, 1000),
  DELIVERY_POLL_MS: env.int(
    "how often due deliveries (retries, other replicas' rows) are looked for",
    500,
    10,
    60_000,
  ),
  LIVE_HEARTBEAT_MS: env.int("heartbeat interval of the live notification stream", 15_000, 100, 300_000),
  INTEREST_REFRESH_MS: env.int(
    "how often the interest index (which event types each tenant's subscriptions and channels take) is reloaded in the background, in case a change broadcast by another replica was lost",
    30_000,
    1_000,
    3_600_000,
  ),
};

export const notificationsService: ServiceModule<
  NotificationsDeps & { worker: DeliveryWorker; dispatch: LanedConsumer },
  typeof config
> = {
  name: "notifications",
  ports: SERVICE_PORTS.notifications,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => {
    const key = cfg.WEBHOOK_SECRETS_KEY;
    if (!key)
      base.logger.warn("WEBHOOK_SECRETS_KEY is unset: webhook secrets are sealed under a per-process key");
    if (!cfg.SMTP_URL) base.logger.warn("SMTP_URL is unset: EMAIL notification channels send nothing");
    const secrets = sealer(
      key ? parseSealKey(key, "WEBHOOK_SECRETS_KEY") : randomBytes(32),
      "webhook-secret",
    );
    const development = cfg.NODE_ENV === "development";
    const policy: TargetPolicy = {
      allowHttp: cfg.WEBHOOK_ALLOW_HTTP ?? development,
      allowedCidrs: (cfg.WEBHOOK_ALLOWED_CIDRS ?? (development ? DEVELOPMENT_CIDRS : ""))
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    };
    const allowed = addressGuard(policy);
    const resolve = hostResolver(cfg.WEBHOOK_HOSTS);
    const retry = {
      maxAttempts: cfg.DELIVERY_MAX_ATTEMPTS,
      baseDelayMs: cfg.DELIVERY_RETRY_BASE_MS,
      maxDelayMs: cfg.DELIVERY_RETRY_MAX_MS,
    };
    const mailer = cfg.SMTP_URL
      ? smtpMailer({ url: cfg.SMTP_URL, from: cfg.MAIL_FROM, timeoutMs: cfg.WEBHOOK_TIMEOUT_MS })
      : undefined;
    const worker = deliveryWorker({
      db: base.db,
      logger: base.logger,
      metrics: base.metrics,
      secrets,
      retry,
      sendWebhook: webhookSender({
        allowed,
        resolve,
        timeoutMs: cfg.WEBHOOK_TIMEOUT_MS,
        userAgent: "fop-webhooks/1",
      }),
      sendMail: mailer?.send,
      concurrency: cfg.DELIVERY_CONCURRENCY,
      pollMs: cfg.DELIVERY_POLL_MS,
      leaseMs: cfg.WEBHOOK_TIMEOUT_MS * 2 + 5_000,
    });
    let lanesRead = "";
    const interest = interestIndex({
      load: () => loadInterest(base.db),
      bus: { nc: base.nats.nc, subject: interestSubject(base.nats.events.subjectPrefix) },
      refreshMs: cfg.INTEREST_REFRESH_MS,
      logger: base.logger,
      metrics: base.metrics,
      // Wants changed (a write here, another replica's broadcast, the periodic reload): the
      // dispatch consumer reconciles its lanes and reads the durables another replica made.
      onLoad: (loaded) => {
        const lanes = JSON.stringify(dispatchLanes(loaded.anyTenant));
        if (lanes === lanesRead) return;
        lanesRead = lanes;
        deps.dispatch.refresh();
      },
    });
    const deps: NotificationsDeps & { worker: DeliveryWorker; dispatch: LanedConsumer } = {
      db: base.db,
      outbox: base.outbox,
      cursors: base.cursors,
      facilities: catalogFacilities(cfg.CATALOG_URL, base.rpcCredentials, cfg.FACILITY_CACHE_TTL_MS),
      secrets,
      retry,
      // The URL, then what its name resolves to now; every delivery checks again at connect time.
      checkCallbackUrl: (url) => checkCallbackUrl(url, policy, allowed, resolve),
      publishLive: livePublisher(base.nats.nc, base.nats.events.subjectPrefix),
      live: (tenant, signal) =>
        liveNotifications(
          base.nats.nc,
          base.nats.events.subjectPrefix,
          tenant,
          signal,
          cfg.LIVE_HEARTBEAT_MS,
        ),
      wakeDelivery: () => worker.wake(),
      interest,
      emailEnabled: Boolean(mailer),
      now: base.now,
      newId: base.newId,
      worker,
      dispatch: eventConsumer(base, {
        name: "notifications-dispatch",
        // JetStream delivers only the entity types (and external event types) some tenant wants
        // (its lanes); an event its own tenant's subscriptions and channels do not take is
        // acknowledged from its subject and tenant header: not decoded, no transaction, no inbox row.
        lanes: { wanted: async (tx) => dispatchLanes((await loadInterest(tx)).anyTenant) },
        accepts: interest.accepts,
        handle: (tx, event) => dispatchEvent(deps, tx, event),
        concurrency: 8,
      }),
    };
    return deps;
  },
  routes: notificationRoutes,
  workers: (deps) => [deps.interest, deps.dispatch, deps.worker],
};
