import type http from "node:http";
import { claimHealthChecks, countLinksForHealth, recordHealthResults, type EventData, type HealthResult, type SystemCtx } from "@shortener/core";
import type { Database } from "@shortener/db";
import type { ImporterLog } from "../importer.ts";
import { systemLookup, type Lookup } from "../webhooks/target.ts";
import { checkDestination, endRequest } from "./check-destination.ts";
import { createHostLimiter } from "./host-limiter.ts";

export type HealthCheckerConfig = {
  /** HEALTH_HOST_RATE: request starts a second to one destination host, in this process. */
  hostRatePerSecond: number;
  /** HEALTH_TIMEOUT_MS: each request's (and each lookup's) time limit. */
  timeoutMs: number;
  /** HEALTH_ALLOW_PRIVATE: private, loopback and link-local destinations are checked too. */
  allowPrivate: boolean;
  /** How often a batch is claimed. */
  intervalMs: number;
  /** A link is looked at again this long after a look (a day). */
  recheckMs: number;
  /** After a look that learnt nothing (this machine's resolver failed), the next one this soon. */
  retryMs: number;
  /** A claimed link is due again this long after its claim if its result is never written (the worker died). */
  leaseMs: number;
  /** Checks of one batch in flight at once. */
  concurrency: number;
  maxRedirects: number;
  /** A day's worth of links × this, spread over the day's batches: a little ahead of the links, never behind. */
  catchUp: number;
  /** Batch bounds: at least this many a batch (so a small install is done in minutes), at most that many. */
  minBatch: number;
  maxBatch: number;
  /** How often the number of links is read again for the pacing. */
  populationRefreshMs: number;
  userAgent: string;
};

export const DEFAULT_HEALTH_CONFIG: HealthCheckerConfig = {
  hostRatePerSecond: 2,
  timeoutMs: 10_000,
  allowPrivate: false,
  intervalMs: 10_000,
  recheckMs: 86_400_000,
  retryMs: 3_600_000,
  leaseMs: 3_600_000,
  concurrency: 16,
  maxRedirects: 5,
  catchUp: 1.25,
  minBatch: 10,
  maxBatch: 1000,
  populationRefreshMs: 3_600_000,
  userAgent: "Shortener-LinkCheck/1.0 (destination health)",
};

export type HealthCheckerDeps = {
  database: Database;
  now: () => Date;
  log: ImporterLog;
  config?: Partial<HealthCheckerConfig>;
  /** Name resolution for the SSRF guard; the system resolver by default. */
  lookup?: Lookup;
  /** Renders `link.broken`'s data (the API's link JSON); without it no event is written. */
  events?: EventData;
};

/** What one batch did. */
export type HealthRun = { claimed: number; checked: number; broken: number[]; requests: number };

export type HealthChecker = {
  /** Claims and checks a batch every `intervalMs`, paced so the day's links spread over the day. */
  start(): void;
  /** One batch now: `limit` links (default: the paced batch size). Tests call it; the timer does otherwise. */
  runOnce(limit?: number): Promise<HealthRun>;
  /** Stops the timer, ends requests in flight (their links come due again after the lease), waits for the batch. */
  close(): Promise<void>;
};

/**
 * How many links a batch claims so that `population` links are each looked at about once a day: the
 * day's share of one interval, times `catchUp`, within the bounds. 100,000 links at 10 s intervals:
 * 15 a batch, about 1.5 checks a second; a small install (under 7,000 links) gets 10 a batch.
 */
export function batchSizeFor(population: number, config: Pick<HealthCheckerConfig, "intervalMs" | "recheckMs" | "catchUp" | "minBatch" | "maxBatch">): number {
  const share = Math.ceil((population * config.catchUp * config.intervalMs) / config.recheckMs);
  return Math.min(config.maxBatch, Math.max(config.minBatch, share));
}

/**
 * The worker role's destination health checks (CONTRACT §25, docs/link-features.md,
 * docs/adr/0054-destination-health.md). Every `intervalMs` it claims a small batch of the links whose
 * look is due (core's `claimHealthChecks`: `for update skip locked`, so several workers share the
 * queue and never look at one link twice), looks at each destination (`checkDestination`: HEAD, then GET,
 * redirects, the SSRF guard, at most `hostRatePerSecond` requests a second per host), and writes the
 * batch's results in one statement (`recordHealthResults`, which also writes `link.broken` when a link
 * becomes broken). A look schedules the next one a day later, so once the queue is spread over the day
 * it stays spread; a new link, or a link whose url changed, is due at once.
 */
export function createHealthChecker(deps: HealthCheckerDeps): HealthChecker {
  const config: HealthCheckerConfig = { ...DEFAULT_HEALTH_CONFIG, ...deps.config };
  const { database, log } = deps;
  const lookup = deps.lookup ?? systemLookup;
  const ctx: SystemCtx = { db: database.db, now: deps.now, ...(deps.events ? { events: deps.events } : {}) };
  const limiter = createHostLimiter({ perSecond: config.hostRatePerSecond });
  const inFlight = new Set<http.ClientRequest>();
  let population: { n: number; at: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let isClosing = false;

  async function pacedLimit(): Promise<number> {
    if (!population || Date.now() - population.at > config.populationRefreshMs) population = { n: await countLinksForHealth(ctx), at: Date.now() };
    return batchSizeFor(population.n, config);
  }

  async function runOnce(limit?: number): Promise<HealthRun> {
    const claimed = await claimHealthChecks(ctx, { limit: limit ?? (await pacedLimit()), leaseMs: config.leaseMs });
    const results: HealthResult[] = [];
    let requests = 0;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length && !isClosing) {
        const link = claimed[next++];
        if (!link) return;
        if (!link.isActive) {
          // Expired: nobody is sent there, so nobody needs to know. Looked at again in a day (it may be extended).
          results.push({ id: link.id, url: link.url, health: null, reason: null, checkedAt: null, dueAt: new Date(deps.now().getTime() + config.recheckMs) });
          continue;
        }
        const outcome = await checkDestination(link.url, { ...config, lookup, limiter, inFlight });
        requests += outcome.requests;
        if (isClosing && outcome.health === null) return;
        const at = deps.now();
        results.push(
          outcome.health === null
            ? { id: link.id, url: link.url, health: null, reason: null, checkedAt: null, dueAt: new Date(at.getTime() + config.retryMs) }
            : { id: link.id, url: link.url, health: outcome.health, reason: outcome.reason, checkedAt: at, dueAt: new Date(at.getTime() + config.recheckMs) },
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(config.concurrency, claimed.length) }, worker));
    const { broken } = await recordHealthResults(ctx, results);
    if (broken.length) log.info({ count: broken.length, links: broken.slice(0, 20) }, "destinations found broken");
    return { claimed: claimed.length, checked: results.filter((r) => r.health !== null).length, broken, requests };
  }

  function tick(): void {
    if (isClosing) return;
    const started = Date.now();
    running = runOnce()
      .catch((error: unknown) => log.error({ err: error }, "destination health checks failed; they will be retried"))
      .finally(() => {
        if (isClosing) return;
        // A fixed pace: a batch that took longer than the interval is followed at once.
        timer = setTimeout(tick, Math.max(0, config.intervalMs - (Date.now() - started)));
        timer.unref();
      });
  }

  return {
    start() {
      if (timer || isClosing) return;
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    runOnce,
    async close() {
      isClosing = true;
      clearTimeout(timer);
      limiter.close();
      for (const req of inFlight) endRequest(req);
      await running;
    },
  };
}
