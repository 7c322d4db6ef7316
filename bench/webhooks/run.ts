/**
 * Webhook delivery benchmark (issue #17): BENCH_EVENTS `link.clicked` events (default 10,000) written the
 * way the visitor side writes them — core's `recordClicks`, one batch per flush, one event per link per
 * batch — then delivered by the real worker to a receiver on loopback. Prints the delivery rate, the
 * latency from event to receipt, and once a second the queue: events in the outbox, deliveries
 * pending, delivered, the pg-boss wake-ups waiting, and what the receiver has seen.
 *
 *   pnpm bench:webhooks          # BENCH_EVENTS, BENCH_WEBHOOKS (receivers, each gets every event), BENCH_DB=postgres|pglite, BENCH_ADMIN_URL
 *
 * The worker, the receiver and the database client share this process; on the development machine
 * the database shares its two cores with them.
 */
import { createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { createWebhook, recordClicks, type Click } from "@shortener/core";
import { createTestUser } from "@shortener/core/testing";
import { migrate, openDb, queryRows, type Database } from "@shortener/db";
import { createWebhookWorker } from "@shortener/worker";
import postgres from "postgres";
import { log } from "../common.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 1);
const DRIVER = process.env.BENCH_DB === "pglite" ? "pglite" : "postgres";
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Links clicked per flush: the click buffer's largest batch. */
const PER_FLUSH = 2000;

async function openBenchDb(): Promise<{ database: Database; drop(): Promise<void> }> {
  if (DRIVER === "pglite") {
    const database = await openDb({ dataDir: undefined });
    await migrate(database);
    return { database, drop: () => database.close() };
  }
  const name = `shortener_bench_webhooks_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDb({ url: url.toString(), poolSize: 10 });
  await migrate(database);
  return {
    database,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main(): Promise<void> {
  const { database, drop } = await openBenchDb();
  const received: Array<{ webhook: string; id: number; at: number }> = [];
  let badSignatures = 0;
  const secrets = new Map<string, string>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const webhook = (req.url ?? "/").slice(1);
      const [t, v1] = String(req.headers["shortener-signature"])
        .split(",")
        .map((part) => part.slice(part.indexOf("=") + 1));
      if (
        createHmac("sha256", secrets.get(webhook) ?? "")
          .update(`${t}.${body}`)
          .digest("hex") !== v1
      )
        badSignatures++;
      const payload = JSON.parse(body) as { id: number };
      received.push({ webhook, id: payload.id, at: Date.now() });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;

  try {
    const user = await createTestUser(database.db);
    const [domain] = await queryRows<{ id: number }>(
      database.db,
      sql`insert into domains (workspace_id, name) values (${user.workspaceId}, ${`bench-${randomBytes(3).toString("hex")}.example`}) returning id`,
    );
    const links = await queryRows<{ id: number }>(
      database.db,
      sql`insert into links (workspace_id, domain_id, alias, url) select ${user.workspaceId}::int, ${domain?.id}::int, 'w' || i, 'https://example.com/' || i from generate_series(1, ${Math.min(EVENTS, PER_FLUSH)}) as i returning id`,
    );
    for (let w = 0; w < WEBHOOKS; w++) {
      const { webhook, secret } = await createWebhook({ ctx: user.ctx, input: { url: `http://127.0.0.1:${port}/${w}`, events: ["link.clicked"] }, options: { allowPrivateTargets: true } });
      secrets.set(String(w), secret);
      void webhook;
    }

    // The events, as click flushes write them: each flush clicks every link once (one event per link).
    const flushes = Math.ceil(EVENTS / links.length);
    const writeStarted = performance.now();
    let written = 0;
    for (let f = 0; f < flushes; f++) {
      const at = new Date(Date.now() - (flushes - f) * 1000);
      const batch: Click[] = links.slice(0, Math.min(links.length, EVENTS - written)).map((l) => ({
        linkId: l.id,
        at,
        country: "DE",
        platform: "Linux",
        browser: "Chrome",
        device: "desktop",
        language: "en",
        referrer: null,
        counted: false,
        rotation: null,
        count: 1 + (f % 3),
      }));
      await recordClicks(database.db, batch);
      written += batch.length;
    }
    const writeMs = performance.now() - writeStarted;
    const [outbox] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from webhook_events`);
    log(
      `${DRIVER}: ${written} link.clicked events written by ${flushes} click batches in ${(writeMs / 1000).toFixed(2)} s; outbox holds ${outbox?.n}; ${WEBHOOKS} webhook(s) → ${written * WEBHOOKS} deliveries to make`,
    );

    const expected = written * WEBHOOKS;
    const worker = createWebhookWorker({
      database,
      now: () => new Date(),
      log: { info() {}, warn: (o, m) => log(`warn ${m} ${JSON.stringify(o)}`), error: (o, m) => log(`error ${m} ${String((o as { err?: unknown }).err ?? "")}`) },
      config: { allowPrivate: true },
    });
    const started = performance.now();
    const startedAt = Date.now();
    await worker.start();
    const samples: string[] = [];
    const sample = async () => {
      const [row] = await queryRows<{ outbox: number; pending: number; delivered: number; wakeups: number }>(
        database.db,
        sql`select (select count(*)::int from webhook_events) as outbox,
          (select count(*)::int from webhook_deliveries where status = 'pending') as pending,
          (select count(*)::int from webhook_deliveries where status = 'delivered') as delivered,
          (select count(*)::int from pgboss.job where name = 'shortener-webhooks' and state in ('created', 'retry', 'active')) as wakeups`,
      );
      samples.push(
        `${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  outbox ${String(row?.outbox).padStart(6)}  pending ${String(row?.pending).padStart(6)}  delivered ${String(row?.delivered).padStart(6)}  pg-boss wake-ups ${String(row?.wakeups).padStart(3)}  received ${String(received.length).padStart(6)}`,
      );
      console.log(samples.at(-1));
      return row?.delivered ?? 0;
    };
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const delivered = await sample();
      if (delivered >= expected && received.length >= expected) break;
      if (performance.now() - started > 600_000) throw new Error("not delivered within 10 minutes");
    }
    const seconds = (performance.now() - started) / 1000;
    await worker.close();

    const perWebhook = new Map<string, number[]>();
    for (const r of received) perWebhook.set(r.webhook, [...(perWebhook.get(r.webhook) ?? []), r.id]);
    const inOrder = [...perWebhook.values()].every((ids) => ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0)));
    const unique = new Set(received.map((r) => `${r.webhook}:${r.id}`)).size;
    const [attempts] = await queryRows<{ n: number; failed: number }>(database.db, sql`select count(*)::int as n, count(*) filter (where not is_success)::int as failed from webhook_attempts`);
    const firstArrival = Math.min(...received.map((r) => r.at));
    const lastArrival = Math.max(...received.map((r) => r.at));
    const sendSeconds = (lastArrival - firstArrival) / 1000;

    console.log("");
    console.log(`| ${DRIVER} | deliveries | webhooks | wall time (worker start → all delivered) | rate | rate while sending | attempts (failed) | in order | unique | bad signatures |`);
    console.log("|---|---|---|---|---|---|---|---|---|---|");
    console.log(
      `| | ${expected.toLocaleString("en")} | ${WEBHOOKS} | ${seconds.toFixed(1)} s | ${Math.round(expected / seconds).toLocaleString("en")}/s | ${Math.round(expected / Math.max(sendSeconds, 0.001)).toLocaleString("en")}/s | ${attempts?.n} (${attempts?.failed}) | ${inOrder ? "yes" : "NO"} | ${unique === expected ? "yes" : `NO (${unique})`} | ${badSignatures} |`,
    );
    console.log(
      `Writing the ${written.toLocaleString("en")} events with the clicks: ${(writeMs / 1000).toFixed(2)} s for ${flushes} batches (${Math.round(writeMs / flushes)} ms a batch of ${links.length} links).`,
    );
    const gaps = received
      .slice(1)
      .map((r, i) => r.at - (received[i]?.at ?? r.at))
      .sort((a, b) => a - b);
    console.log(
      `First delivery ${((firstArrival - startedAt) / 1000).toFixed(2)} s after the worker was started; gap between deliveries p50 ${percentile(gaps, 50)} ms, p99 ${percentile(gaps, 99)} ms, max ${gaps.at(-1) ?? 0} ms.`,
    );
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await drop();
  }
}

await main();
