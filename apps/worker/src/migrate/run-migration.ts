import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import {
  checkImport,
  claimImport,
  completeImport,
  createImport,
  failImport,
  findDomainByName,
  findOpenImportByKeyPrefix,
  getImport,
  ImportGoneError,
  normalizeDomainName,
  runImportBatches,
  setImportTotalRows,
  streamImportErrors,
  type Ctx,
  type ImportBatch,
  type ImportRow,
  type ImportTotals,
  type RowError,
  type SystemCtx,
} from "@shortener/core";
import { csvLine } from "@shortener/csv";
import type { Database } from "@shortener/db";
import { CliError } from "../cli/args.ts";
import { freeErrorsPath } from "../cli/errors-file.ts";
import type { CliIo } from "../cli/io.ts";
import { fmt } from "../cli/progress.ts";
import { tryLockJob } from "../locks.ts";
import { importRowOf } from "./rows.ts";
import { SourceError, SourceLoopError, type Source, type SourceLink } from "./source.ts";

/** One `importer migrate` run, once its source, database, user and domain are known. */
export type MigrationRun = {
  source: Source;
  /** The source's base URL (it names the job; the key does not). */
  url: string;
  database: Database;
  sys: SystemCtx;
  ctx: Ctx;
  userEmail: string;
  /** The domain of links the source puts on no named domain. */
  domainId: number | null;
  /** Rows a transaction, rounded up to whole pages. */
  batchSize: number;
  isDryRun: boolean;
  /** Where the refused aliases' CSV of a job goes (a free name beside it when taken). */
  reportPath: (jobId: number) => string;
  say: (line: string) => void;
  io: CliIo;
};

/** Consecutive empty pages that still say more follow before the source is called broken. */
const MAX_EMPTY_PAGES = 3;
/** Refused aliases printed; the CSV has every one. */
const SHOWN_REFUSALS = 50;

/** What a run saw of its source, beyond the job's counters: for the report. */
type Seen = { links: number; pages: number; claimedTotal: number | undefined; notes: Map<string, number> };

/**
 * Reads the source from `cursor` on, a page at a time, and yields batches of whole pages (each batch
 * carries the cursors it read and where the next page starts, so it is committed with them). A cursor
 * already read — in this run or an earlier one of the job — is a loop: SourceLoopError. The next page
 * is asked for while the current batch is being written.
 */
async function* pagesOf(run: MigrationRun, start: { cursor: string | null; seen: Set<string>; line: number }, seen: Seen, progress: () => void, signal: AbortSignal): AsyncGenerator<ImportBatch> {
  let cursor = start.cursor;
  let line = start.line;
  let empties = 0;
  const domains = new Map<string, boolean>();
  const hasDomain = async (name: string) => {
    const normal = normalizeDomainName(name);
    if (!normal) return true; // the import's own check says why the name is bad
    let found = domains.get(normal);
    if (found === undefined) {
      found = (await findDomainByName({ ctx: run.ctx, name: normal })) !== null;
      domains.set(normal, found);
    }
    return found;
  };
  const key = (c: string | null) => c ?? "";
  if (start.seen.has(key(cursor))) throw new SourceLoopError(`The source's page ${cursor ?? "(first)"} was already read: its pages loop.`);
  let pending = run.source.page(cursor, signal);
  pending.catch(() => {}); // a run stopped before it needs this page must not leave its failure unhandled
  let batch: ImportBatch = { rows: [], source: { read: [], next: null } };
  for (;;) {
    let page: Awaited<typeof pending>;
    try {
      page = await pending;
    } catch (error) {
      // The pages read so far are whole: commit them before the run stops on this one.
      if (batch.rows.length || batch.source?.read.length) yield batch;
      throw error;
    }
    start.seen.add(key(cursor));
    (batch.source as { read: string[] }).read.push(key(cursor));
    seen.pages++;
    if (page.total !== undefined) seen.claimedTotal = page.total;
    const next = page.next;
    if (next !== null && start.seen.has(next)) {
      // This page is fine and is written; reading on would go round for ever.
      batch.rows.push(...(await rowsOf(page.links)));
      (batch.source as { next: string | null }).next = next;
      yield batch;
      throw new SourceLoopError(`The source's next page (${next.slice(0, 100)}) is one already read: its pages loop. The links before it were imported.`);
    }
    empties = page.links.length ? 0 : empties + 1;
    if (next !== null && empties >= MAX_EMPTY_PAGES) throw new SourceLoopError(`The source answered ${MAX_EMPTY_PAGES} empty pages in a row that each say more follow.`);
    if (next !== null) {
      pending = run.source.page(next, signal);
      pending.catch(() => {});
    }
    batch.rows.push(...(await rowsOf(page.links)));
    (batch.source as { next: string | null }).next = next;
    cursor = next;
    progress();
    if (next === null || batch.rows.length >= run.batchSize) {
      yield batch;
      batch = { rows: [], source: { read: [], next: null } };
    }
    if (next === null) return;
  }

  async function rowsOf(links: SourceLink[]): Promise<ImportRow[]> {
    const rows: ImportRow[] = [];
    for (let link of links) {
      seen.links++;
      const tags = keepableTags(link.tags ?? []);
      if (tags.dropped.length)
        link = {
          ...link,
          tags: tags.kept,
          notes: [...(link.notes ?? []), ...tags.dropped.map(() => "a tag that cannot be kept here (1–32 characters, no comma or semicolon, at most 20): not carried")],
        };
      for (const note of link.notes ?? []) seen.notes.set(note, (seen.notes.get(note) ?? 0) + 1);
      const row = importRowOf(link, ++line);
      if (row.fields?.domain && !(await hasDomain(row.fields.domain))) {
        rows.push({ line, alias: row.fields.alias ?? "", error: `The domain ${row.fields.domain} is not one of ${run.userEmail}'s domains here: add it, then run the same command again.` });
      } else rows.push(row);
    }
    return rows;
  }
}

/**
 * `importer migrate` (CONTRACT §23): the source's links through an import job (§12), so the run is
 * resumable, idempotent and shown in the dashboard. One job per run; an unfinished job of the same
 * source, URL, user and domain is resumed from its last committed page. A dry run reads every page and
 * checks every link, writing nothing. Returns the exit status.
 */
export async function runMigration(run: MigrationRun): Promise<number> {
  return run.isDryRun ? dryRun(run) : migrateAsJob(run);
}

function newSeen(): Seen {
  return { links: 0, pages: 0, claimedTotal: undefined, notes: new Map() };
}

function progressLine(run: MigrationRun, seen: Seen, totals: () => Omit<ImportTotals, "line">, started: number) {
  let last = 0;
  return (force = false) => {
    const now = performance.now();
    if (!force && now - last < 2000) return;
    last = now;
    const t = totals();
    const rate = Math.round(seen.links / Math.max((now - started) / 1000, 0.001));
    const of = seen.claimedTotal !== undefined ? ` of ${fmt(seen.claimedTotal)} (the source's count)` : "";
    run.say(`progress: ${fmt(seen.links)} links read${of}, page ${fmt(seen.pages)}, ${fmt(rate)} links/s — ${fmt(t.created)} created, ${fmt(t.skipped)} skipped, ${fmt(t.failed)} refused`);
  };
}

async function dryRun(run: MigrationRun): Promise<number> {
  const seen = newSeen();
  const refused: RowError[] = [];
  let totals: ImportTotals = { processed: 0, created: 0, skipped: 0, failed: 0, line: 1 };
  const started = performance.now();
  const progress = progressLine(run, seen, () => totals, started);
  const abort = new AbortController();
  async function* rows(): AsyncGenerator<ImportRow> {
    for await (const batch of pagesOf(run, { cursor: null, seen: new Set(), line: 1 }, seen, progress, abort.signal)) yield* batch.rows;
  }
  try {
    await checkImport({
      ctx: run.sys,
      workspaceId: run.ctx.actor.workspaceId,
      defaultDomainId: run.domainId,
      rows: rows(),
      options: { batchSize: run.batchSize, onBatch: (o, t) => ((totals = t), refused.push(...o.errors)) },
    });
  } catch (error) {
    abort.abort();
    throw asCliError(error);
  }
  progress(true);
  run.say(
    `Dry run of ${run.source.name} ${run.url} (nothing written): ${fmt(totals.processed)} links in ${((performance.now() - started) / 1000).toFixed(1)} s — ${fmt(totals.created)} would be created, ${fmt(totals.skipped)} skipped (already here, same url), ${fmt(totals.failed)} refused.`,
  );
  sayExtras(run, seen);
  sayRefusals(run, refused);
  return 0;
}

async function migrateAsJob(run: MigrationRun): Promise<number> {
  const { ctx, sys, say } = run;
  const prefix = `migrate:${createHash("sha256")
    .update(`${run.source.name}\n${run.url}\n${ctx.actor.workspaceId}\n${run.domainId ?? "-"}`)
    .digest("hex")
    .slice(0, 32)}:`;
  const open = await findOpenImportByKeyPrefix(sys, ctx.actor.workspaceId, prefix);
  const jobId =
    open ??
    (
      await createImport({
        ctx,
        input: { idempotency_key: `${prefix}${sys.now().getTime().toString(36)}`, ...(run.domainId ? { domain_id: run.domainId } : {}) },
      })
    ).job.id;
  const lock = await tryLockJob(run.database, jobId);
  if (!lock) throw new CliError(`Job ${jobId} of this migration is being run by another process.`);
  try {
    const claimed = await claimImport(sys, jobId);
    if (!claimed) throw new CliError(`Job ${jobId} is no longer running.`);
    const cursorsSeen = new Set(claimed.sourceCursorsSeen);
    const isResume = cursorsSeen.size > 0;
    if (isResume) say(`Resuming job ${jobId} at ${claimed.sourceCursor === null ? "its end" : `page cursor ${claimed.sourceCursor}`} (${fmt(claimed.processedRows)} links already done).`);
    else say(`Migrating ${run.source.name} ${run.url} as import job ${jobId}.`);
    let isStopping = false;
    run.io.onInterrupt?.(() => {
      if (!isStopping) say("\nStopping after the current page batch…");
      isStopping = true;
    });
    const seen = newSeen();
    let totals: ImportTotals = { processed: claimed.processedRows, created: claimed.createdRows, skipped: claimed.skippedRows, failed: claimed.failedRows, line: claimed.checkpointLine };
    const started = performance.now();
    const progress = progressLine(run, seen, () => totals, started);
    let lastTotal: number | undefined;
    const abort = new AbortController();
    const isAtEnd = isResume && claimed.sourceCursor === null;
    const batches = isAtEnd
      ? (async function* (): AsyncGenerator<ImportBatch> {})()
      : pagesOf(run, { cursor: claimed.sourceCursor, seen: cursorsSeen, line: claimed.checkpointLine }, seen, progress, abort.signal);
    let result: { isFinished: boolean; totals: ImportTotals };
    try {
      result = await runImportBatches({
        ctx: sys,
        job: claimed,
        batches,
        options: {
          shouldStop: () => isStopping,
          onBatch: (_o, t) => {
            totals = t;
            if (seen.claimedTotal !== undefined && seen.claimedTotal !== lastTotal) {
              lastTotal = seen.claimedTotal;
              void setImportTotalRows(sys, jobId, Math.max(seen.claimedTotal, t.processed)).catch(() => {});
            }
            progress();
          },
        },
      });
    } catch (error) {
      abort.abort();
      if (error instanceof ImportGoneError) throw new CliError(`Job ${jobId} was deleted with its user.`);
      if (error instanceof SourceLoopError) {
        await failImport(sys, jobId, error.message);
        say(await reportOf(run, jobId, seen, `Job ${jobId} failed`));
        throw new CliError(error.message);
      }
      if (error instanceof SourceError) {
        say(`Stopped: ${fmt(totals.processed)} links of job ${jobId} are committed; nothing of the failed page was written.`);
        throw new CliError(`${error.message} Run the same command again to resume job ${jobId} from its last committed page.`);
      }
      throw error;
    }
    progress(true);
    if (!result.isFinished) {
      say(`Stopped after ${fmt(result.totals.processed)} links. Run the same command again to resume job ${jobId}.`);
      return 1;
    }
    await completeImport(sys, jobId);
    const elapsed = (performance.now() - started) / 1000;
    say(`Read ${fmt(seen.links)} links (${fmt(seen.pages)} pages) in ${elapsed.toFixed(1)} s (${fmt(Math.round(seen.links / Math.max(elapsed, 0.001)))} links/s).`);
    if (!isResume && seen.claimedTotal !== undefined && seen.claimedTotal !== seen.links) {
      say(`Note: the source said it had ${fmt(seen.claimedTotal)} links and gave ${fmt(seen.links)}; the pages, not its count, decided where to stop.`);
    }
    say(await reportOf(run, jobId, seen, `Migrated ${run.source.name} ${run.url} as job ${jobId}`));
    return 0;
  } finally {
    await lock.release();
  }
}

/** The final report: the job's counters, what was not carried, and every refused alias (the CSV beside has them all). */
async function reportOf(run: MigrationRun, jobId: number, seen: Seen, title: string): Promise<string> {
  const job = await getImport({ ctx: run.ctx, id: jobId });
  const lines = [`${title}: ${fmt(job.processedRows)} links — ${fmt(job.createdRows)} created, ${fmt(job.skippedRows)} skipped (already here, same url), ${fmt(job.failedRows)} refused.`];
  const out: string[] = [];
  sayExtras({ ...run, say: (l) => out.push(l) }, seen);
  lines.push(...out);
  if (job.failedRows) {
    const path = freeErrorsPath(run.reportPath(jobId));
    const file = createWriteStream(path);
    file.write(csvLine(["alias", "field", "reason"]));
    const shown: string[] = [];
    for await (const page of await streamImportErrors({ ctx: run.ctx, id: jobId })) {
      for (const e of page) {
        file.write(csvLine([e.alias ?? "", e.field ?? "", e.message]));
        if (shown.length < SHOWN_REFUSALS) shown.push(`  ${e.alias || "(no alias)"}: ${e.field ? `${e.field}: ` : ""}${e.message}`);
      }
    }
    file.end();
    await finished(file);
    lines.push("Aliases not kept:", ...shown);
    if (job.failedRows > shown.length) lines.push(`  … and more: every one is in ${path}`);
    lines.push(`Refused aliases with their reasons: ${path}`);
  } else lines.push("Every alias was kept.");
  return lines.join("\n");
}

function sayExtras(run: Pick<MigrationRun, "say">, seen: Seen): void {
  for (const [note, n] of [...seen.notes].sort((a, b) => b[1] - a[1])) run.say(`Not carried: ${note} (${fmt(n)} links).`);
}

function sayRefusals(run: MigrationRun, refused: RowError[]): void {
  if (!refused.length) return run.say("Every alias would be kept.");
  run.say("Aliases that would not be kept:");
  for (const e of refused.slice(0, SHOWN_REFUSALS)) run.say(`  ${e.alias || "(no alias)"}: ${e.field ? `${e.field}: ` : ""}${e.message}`);
  if (refused.length > SHOWN_REFUSALS) run.say(`  … and ${fmt(refused.length - SHOWN_REFUSALS)} more (run without --dry-run for the CSV of every one).`);
}

function asCliError(error: unknown): unknown {
  return error instanceof SourceError || error instanceof SourceLoopError ? new CliError(error.message) : error;
}

/**
 * A source's tags as links here can keep them (CONTRACT §25: 1–32 characters, no comma or semicolon or
 * control character, copies alike but for case once, at most 20); the others are dropped with a note, so
 * a tag never costs a link its migration.
 */
export function keepableTags(tags: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim();
    const key = tag.toLowerCase();
    if (!tag || /[,;\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(tag) || [...tag].length > 32) dropped.push(raw);
    else if (seen.has(key)) continue;
    else if (kept.length >= 20) dropped.push(raw);
    else {
      seen.add(key);
      kept.push(tag);
    }
  }
  return { kept, dropped };
}
