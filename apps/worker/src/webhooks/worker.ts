import type PgBoss from "pg-boss";
import {
  DEFAULT_RETRY_POLICY,
  drainWebhookEvents,
  findDueWebhooks,
  findPendingDeliveries,
  nextAttemptAt,
  pruneWebhookDeliveries,
  recordWebhookAttempt,
  type PendingDelivery,
  type RetryPolicy,
  type SystemCtx,
  type WebhookQueue,
} from "@shortener/core";
import type { Database } from "@shortener/db";
import type { ImporterLog } from "../importer.ts";
import { startBoss } from "../queue.ts";
import { createLaneLocks } from "./lane-locks.ts";
import { createAgents, sendDelivery } from "./send.ts";
import { signatureHeader } from "./sign.ts";
import { resolveTarget, systemLookup, type Lookup } from "./target.ts";

/** The pg-boss queue of "send webhook N's due deliveries" wake-ups. */
export const WEBHOOK_QUEUE = "shortener-webhooks";

export type WebhookWorkerConfig = {
  retry: RetryPolicy;
  /** An attempt gets this long for the receiver's answer (CONTRACT §18: 10 s). */
  timeoutMs: number;
  /** Response bodies are read up to this many bytes (64 KiB). */
  maxResponseBytes: number;
  /** How often the outbox is moved into deliveries. */
  drainIntervalMs: number;
  /** How often due deliveries are looked for without a wake-up (one lost with a crashed worker). */
  sweepIntervalMs: number;
  /** Webhooks this process sends to at once (each one's deliveries go one after the other). */
  concurrency: number;
  /** Pending deliveries read per query. */
  batchSize: number;
  /** How often pg-boss looks for wake-ups (at least 0.5 s). */
  pollIntervalSeconds: number;
  /** Delivered and failed deliveries, with their attempts, are kept this long. */
  retainMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: private, loopback and link-local targets are sent to. */
  allowPrivate: boolean;
};

export const DEFAULT_WEBHOOK_CONFIG: WebhookWorkerConfig = {
  retry: DEFAULT_RETRY_POLICY,
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
  drainIntervalMs: 500,
  sweepIntervalMs: 10_000,
  concurrency: 8,
  batchSize: 100,
  pollIntervalSeconds: 1,
  retainMs: 30 * 24 * 3_600_000,
  allowPrivate: false,
};

export type WebhookWorkerDeps = {
  database: Database;
  now: () => Date;
  log: ImporterLog;
  config?: Partial<WebhookWorkerConfig>;
  /** Name resolution for the SSRF guard; the system resolver by default. */
  lookup?: Lookup;
  /** Jitter source (Math.random by default). */
  random?: () => number;
};

export type WebhookWorker = {
  /** Starts draining the outbox, sending due deliveries, and taking wake-ups from pg-boss. */
  start(): Promise<void>;
  /** Moves what is in the outbox into deliveries now and starts sending them (tests; the timer does it otherwise). */
  drain(): Promise<void>;
  /** Stops: sends in flight finish (each is one attempt at most), nothing new starts. */
  close(): Promise<void>;
};

type WakeMessage = { webhookId: number };

/** Longest wait kept as a timer in this process; longer ones rely on pg-boss's delayed message (and the sweep). */
const MAX_LOCAL_WAIT_MS = 60_000;

/**
 * The webhook delivery worker (CONTRACT §18, docs/adr/0023-webhooks.md). Events wait in the outbox
 * (`webhook_events`), written in the same transaction as their change; this worker moves them into one
 * delivery per subscribed webhook, then sends each webhook's deliveries strictly in order — a delivery
 * is tried only once the one before it was delivered or finally failed — with retries backed off
 * exponentially (with jitter) for 24 hours. Every attempt is recorded. A webhook's sender holds its
 * lane lock; pg-boss carries the wake-ups (at once after a drain, delayed for a retry), and a sweep
 * finds due deliveries whose wake-up was lost, so a worker killed mid-delivery resends it after a
 * restart: at least once, with the same `Shortener-Delivery` id.
 */
export function createWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const config: WebhookWorkerConfig = { ...DEFAULT_WEBHOOK_CONFIG, ...deps.config, retry: { ...DEFAULT_RETRY_POLICY, ...deps.config?.retry } };
  const { database, log } = deps;
  const lookup = deps.lookup ?? systemLookup;
  const random = deps.random ?? Math.random;
  const ctx: SystemCtx = { db: database.db, now: deps.now };
  const locks = createLaneLocks(database);
  const agents = createAgents();
  let boss: PgBoss | undefined;
  let isStarted = false;
  let isClosing = false;
  const timers = new Set<NodeJS.Timeout>();
  /** Lanes running in this process, lanes to run again when they end, lanes waiting for a slot. */
  const active = new Map<number, Promise<void>>();
  const again = new Set<number>();
  const waiting = new Set<number>();
  let lastPrune = 0;

  function later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  /** Runs webhook `id`'s lane here if a slot is free (else when one frees), or again after the run under way. */
  function wake(id: number): void {
    if (isClosing) return;
    if (active.has(id)) {
      again.add(id);
      return;
    }
    if (active.size >= config.concurrency) {
      waiting.add(id);
      return;
    }
    const run = runLane(id)
      .catch((error: unknown) => log.error({ err: error, webhookId: id }, "webhook delivery interrupted; it will be retried"))
      .finally(() => {
        active.delete(id);
        if (again.delete(id)) wake(id);
        for (const next of waiting) {
          if (active.size >= config.concurrency) break;
          waiting.delete(next);
          wake(next);
        }
      });
    active.set(id, run);
  }

  /**
   * A wake-up at `at`: a timer here when it is soon, else a delayed pg-boss message that any worker can
   * take. Either may be lost with this process; the sweep then finds the delivery due.
   */
  async function wakeAt(id: number, at: Date): Promise<void> {
    const wait = at.getTime() - deps.now().getTime();
    if (wait <= MAX_LOCAL_WAIT_MS) return later(Math.max(0, wait), () => wake(id));
    await boss
      ?.send(WEBHOOK_QUEUE, { webhookId: id } satisfies WakeMessage, { singletonKey: String(id), startAfter: at })
      .catch((error: unknown) => log.warn({ err: error, webhookId: id }, "could not queue a webhook retry; the sweep will find it"));
  }

  async function runLane(id: number): Promise<void> {
    if (!(await locks.tryLock(id))) return;
    try {
      while (!isClosing) {
        const queue = await findPendingDeliveries(ctx, id, config.batchSize);
        if (!queue || queue.disabled || !queue.deliveries.length) return;
        for (const delivery of queue.deliveries) {
          if (isClosing) return;
          if (delivery.nextAttemptAt.getTime() > deps.now().getTime()) {
            await wakeAt(id, delivery.nextAttemptAt);
            return;
          }
          const outcome = await attempt(id, queue, delivery);
          if (outcome !== "done") return;
        }
      }
    } finally {
      await locks.unlock(id);
    }
  }

  /** One attempt of one delivery, recorded. "done": delivered or given up, go on to the next one. */
  async function attempt(webhookId: number, queue: WebhookQueue, delivery: PendingDelivery): Promise<"done" | "retry" | "stop"> {
    const body = JSON.stringify({ id: delivery.id, type: delivery.type, created_at: delivery.eventAt.toISOString(), data: JSON.parse(delivery.data) as unknown });
    const startedAt = deps.now();
    const target = await resolveTarget(queue.url, { allowPrivate: config.allowPrivate, lookup, timeoutMs: config.timeoutMs });
    const result = target.ok
      ? await sendDelivery(
          target,
          body,
          {
            "user-agent": "Shortener-Webhooks/1.0",
            "shortener-event": delivery.type,
            "shortener-delivery": String(delivery.id),
            "shortener-signature": signatureHeader(queue.secret, body, Math.floor(deps.now().getTime() / 1000)),
          },
          { timeoutMs: config.timeoutMs, maxResponseBytes: config.maxResponseBytes, agents },
        )
      : { responseCode: null, responseBody: null, error: target.error, durationMs: 0 };
    const isSuccess = result.error === null;
    const number = delivery.attempts + 1;
    const finishedAt = new Date(startedAt.getTime() + result.durationMs);
    const next = isSuccess ? null : nextAttemptAt(config.retry, { number, queuedAt: delivery.queuedAt, failedAt: finishedAt }, random);
    const recorded = await recordWebhookAttempt(ctx, {
      deliveryId: delivery.id,
      webhookId,
      number,
      isSuccess,
      responseCode: result.responseCode,
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
      startedAt,
      nextAttemptAt: next,
      disableAfterMs: config.retry.disableAfterMs,
    });
    if (!recorded) return "stop";
    if (isSuccess) {
      log.debug?.({ webhookId, deliveryId: delivery.id, attempt: number, status: result.responseCode, ms: result.durationMs }, "webhook delivered");
      return "done";
    }
    if (recorded.isDisabled) {
      log.warn({ webhookId, deliveryId: delivery.id }, "webhook disabled: its deliveries have failed for too long");
      return "stop";
    }
    if (next) {
      log.info({ webhookId, deliveryId: delivery.id, attempt: number, error: result.error, retryAt: next.toISOString() }, "webhook attempt failed; retrying later");
      await wakeAt(webhookId, next);
      return "retry";
    }
    log.warn({ webhookId, deliveryId: delivery.id, attempts: number, error: result.error }, "webhook delivery failed for good");
    return "done";
  }

  /** Moves the outbox into deliveries, a thousand events at a time, and wakes the webhooks that got some. */
  async function drain(): Promise<void> {
    for (;;) {
      const { events, webhookIds } = await drainWebhookEvents(ctx, { limit: 1000 });
      for (const id of webhookIds) {
        wake(id);
        await boss
          ?.send(WEBHOOK_QUEUE, { webhookId: id } satisfies WakeMessage, { singletonKey: String(id) })
          .catch((error: unknown) => log.warn({ err: error, webhookId: id }, "could not queue a webhook wake-up"));
      }
      if (events < 1000) return;
    }
  }

  async function sweep(): Promise<void> {
    for (const id of await findDueWebhooks(ctx, { limit: 1000 })) wake(id);
    if (Date.now() - lastPrune > 3_600_000) {
      lastPrune = Date.now();
      const pruned = await pruneWebhookDeliveries(ctx, new Date(deps.now().getTime() - config.retainMs));
      if (pruned) log.info({ deliveries: pruned }, "pruned old webhook deliveries");
    }
  }

  function loop(name: string, intervalMs: number, fn: () => Promise<void>): void {
    const tick = () => {
      if (isClosing) return;
      fn()
        .catch((error: unknown) => log.error({ err: error }, `webhook ${name} failed`))
        .finally(() => later(intervalMs, tick));
    };
    tick();
  }

  return {
    async start() {
      if (isStarted) return;
      isStarted = true;
      boss = await startBoss(database, (error) => log.error({ err: error }, "webhook queue error"), [
        // Only wake-ups: one waiting per webhook is enough (a second send is dropped), the lane does the rest.
        { name: WEBHOOK_QUEUE, options: { policy: "short", expireInSeconds: 15 * 60, retryLimit: 3, retryDelay: 5, retentionMinutes: 60 } },
      ]);
      await boss.work<WakeMessage>(WEBHOOK_QUEUE, { pollingIntervalSeconds: config.pollIntervalSeconds, batchSize: 20 }, async (jobs) => {
        for (const job of jobs) wake(job.data.webhookId);
      });
      loop("drain", config.drainIntervalMs, drain);
      loop("sweep", config.sweepIntervalMs, sweep);
    },
    drain,
    async close() {
      isClosing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      waiting.clear();
      again.clear();
      await Promise.allSettled([...active.values()]);
      await boss?.stop({ graceful: true, wait: true, close: false, timeout: 15_000 }).catch(() => {});
      await locks.close();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
