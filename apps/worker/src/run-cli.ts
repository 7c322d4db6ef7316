import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  checkImport,
  claimImport,
  DEFAULT_BATCH_SIZE,
  createImport,
  findDomainByName,
  findUserByEmail,
  personalActor,
  getImport,
  ImportGoneError,
  normalizeDomainName,
  type Ctx,
  type ImportFormat,
  type SystemCtx,
} from "@shortener/core";
import { migrate, type Database } from "@shortener/db";
import { CliError, parseCliArgs, USAGE, type CliArgs, type MigrateArgs } from "./cli/args.ts";
import { openCliDatabase } from "./cli/database.ts";
import { lazyErrorsFile, renamedNote, writeErrorsFile } from "./cli/errors-file.ts";
import type { CliIo } from "./cli/io.ts";
import { countingStream, createProgress, fmt, summary } from "./cli/progress.ts";
import { parseImporterEnv, type ImporterEnv } from "./env.ts";
import { tryLockJob } from "./locks.ts";
import { createSourceHttp } from "./migrate/http.ts";
import { runMigration } from "./migrate/run-migration.ts";
import { SOURCES } from "./migrate/sources.ts";
import { describeFileError, ImportInterruptedError, importRowsOf, runClaimedJob } from "./process-job.ts";

export { USAGE } from "./cli/args.ts";
export { PGLITE_CLI_SETTINGS } from "./cli/database.ts";
export type { CliIo } from "./cli/io.ts";

/**
 * One CLI import, once its arguments, database, user and domain are known: the file (its path and size,
 * and the name the user gave it), the contexts (system and the user's), the domain of rows that name
 * none, the batch size, and where row errors go.
 */
type CliRun = {
  args: CliArgs;
  file: string;
  size: number;
  database: Database;
  sys: SystemCtx;
  ctx: Ctx;
  domainId: number | null;
  batchSize: number | undefined;
  errorsBase: string;
  say: (line: string) => void;
  io: CliIo;
};

/**
 * The operator CLI: `import <file> --user <email> …`. Returns the exit status. The steps: read the
 * arguments and settings, find the file, open the database, find the user and the domain, then a dry
 * run (`dryRun`) or an import as a job (`importAsJob`).
 */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const say = (line: string) => io.stdout.write(`${line}\n`);
  let database: Database | undefined;
  let unlock: () => void = () => {};
  try {
    const args = parseCliArgs(argv);
    if (args === "help") {
      say(USAGE);
      return 0;
    }
    const settings = parseImporterEnv(env);
    if (args.command === "migrate") {
      ({ database, unlock } = await openCliDatabase(settings));
      await migrate(database);
      return await migrateFrom(args, database, settings, say, io);
    }
    const { file, size } = statFile(args.file);
    ({ database, unlock } = await openCliDatabase(settings));
    await migrate(database);
    const run = await resolveRun({ args, settings, file, size, database, say, io });
    return args.isDryRun ? await dryRun(run) : await importAsJob(run);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(`Import failed: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  } finally {
    await database?.close().catch(() => {});
    unlock();
    const rss = process.resourceUsage().maxRSS;
    if (env.IMPORT_REPORT_RSS) io.stdout.write(`peak_rss_kb=${rss}\n`);
  }
}

/** Reads a file's header only, with the import's own reader: a CliError with the reason when its format cannot read it. */
async function checkFileHeader(file: string, format: ImportFormat): Promise<void> {
  const stream = createReadStream(file);
  const rows = importRowsOf(stream, format);
  try {
    await rows.next();
  } catch (error) {
    const reason = describeFileError(error);
    if (reason) throw new CliError(`${reason} Nothing was imported.`);
    throw error;
  } finally {
    await rows.return(undefined);
    stream.destroy();
  }
}

/** The file's absolute path and size; a CliError when it is not a readable file. */
function statFile(name: string): { file: string; size: number } {
  const file = resolve(name);
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error("not a file");
    return { file, size: stat.size };
  } catch {
    throw new CliError(`Cannot read ${name}: no such file.`);
  }
}

/** The user (by email) and the domain of rows that name none (by name, one of the user's): CliErrors when unknown. */
async function resolveUser(database: Database, args: { user: string; domain?: string }): Promise<{ sys: SystemCtx; ctx: Ctx; domainId: number | null }> {
  const sys: SystemCtx = { db: database.db, now: () => new Date() };
  const user = await findUserByEmail(sys, args.user);
  if (!user) throw new CliError(`No user with the email ${args.user}.`);
  const actor = await personalActor(sys.db, user);
  if (!actor) throw new CliError(`The user ${args.user} has no personal workspace.`);
  const ctx: Ctx = { ...sys, actor };
  let domainId: number | null = null;
  if (args.domain !== undefined) {
    const name = normalizeDomainName(args.domain);
    // The user's own domain of that name, verified or not (an unverified domain takes links too).
    const domain = name ? await findDomainByName({ ctx, name }) : null;
    if (!domain) throw new CliError(`${args.domain} is not one of ${user.email}'s domains.`);
    domainId = domain.id;
  }
  return { sys, ctx, domainId };
}

async function resolveRun(p: Pick<CliRun, "args" | "file" | "size" | "database" | "say" | "io"> & { settings: ImporterEnv }): Promise<CliRun> {
  const { sys, ctx, domainId } = await resolveUser(p.database, p.args);
  return { ...p, sys, ctx, domainId, batchSize: p.args.batchSize ?? p.settings.IMPORT_BATCH_SIZE, errorsBase: `${p.file}.errors.csv` };
}

/** `migrate --from …`: the source's adapter over the retrying HTTP client, then the run (migrate/run-migration.ts). */
async function migrateFrom(args: MigrateArgs, database: Database, settings: ImporterEnv, say: (line: string) => void, io: CliIo): Promise<number> {
  const { sys, ctx, domainId } = await resolveUser(database, args);
  const factory = SOURCES[args.from];
  if (!factory) throw new CliError(`No source named ${args.from}.`);
  const http = createSourceHttp({
    baseUrl: args.url,
    onRetry: ({ status, attempt, waitMs, path }) => say(`The source answered ${status ?? "nothing"} on ${path}: waiting ${(waitMs / 1000).toFixed(1)} s before try ${attempt + 1}.`),
  });
  const source = factory({ url: args.url, key: args.key, http });
  return runMigration({
    source,
    url: args.url,
    database,
    sys,
    ctx,
    userEmail: args.user,
    domainId,
    batchSize: args.batchSize ?? settings.IMPORT_BATCH_SIZE ?? DEFAULT_BATCH_SIZE,
    isDryRun: args.isDryRun,
    reportPath: (jobId) => resolve(`migrate-${args.from}-job${jobId}.refused.csv`),
    say,
    io,
  });
}

/** `--dry-run`: every row checked, nothing written; the errors file is opened at the first row error (a clean run leaves none). */
async function dryRun(run: CliRun): Promise<number> {
  const { args, say, batchSize, errorsBase } = run;
  const errors = lazyErrorsFile(errorsBase);
  const progress = createProgress(run.io, run.size);
  const input = countingStream(run.file, progress.onBytes);
  const started = performance.now();
  try {
    const { totals } = await checkImport({
      ctx: run.sys,
      workspaceId: run.ctx.actor.workspaceId,
      defaultDomainId: run.domainId,
      rows: importRowsOf(input.stream, args.format),
      options: { ...(batchSize ? { batchSize } : {}), onBatch: (o, t) => (errors.write(o.errors), progress.onRows(t)) },
    });
    progress.stop();
    const written = await errors.close();
    say(summary(`Dry run of ${args.file} (nothing written)`, totals, performance.now() - started, "would be "));
    say(written ? `Row errors: ${written}${renamedNote(written, errorsBase)}` : "No row errors.");
    return 0;
  } catch (error) {
    progress.stop();
    input.stream.destroy();
    const written = await errors.close().catch(() => undefined);
    if (written) say(`Row errors before the failure: ${written}${renamedNote(written, errorsBase)}`);
    const reason = describeFileError(error);
    if (reason) throw new CliError(reason);
    throw error;
  }
}

/**
 * An import as a job: one job per file content, user and domain unless `--again`, so running the
 * command again resumes it, or reports it when it has ended. The job is locked against other processes,
 * claimed, and run by the worker's own lifecycle (`runClaimedJob`); SIGINT stops it after a batch.
 */
async function importAsJob(run: CliRun): Promise<number> {
  const { args, say, ctx, sys, domainId, errorsBase } = run;
  // A file whose header is not its format's is refused before any job exists (nothing queued, nothing to resume).
  await checkFileHeader(run.file, args.format);
  // One job per file, domain and format (a csv job keeps the key it always had).
  const key = args.isAgain ? undefined : `cli:${await sha256File(run.file)}:${domainId ?? "-"}${args.format === "csv" ? "" : `:${args.format}`}`;
  const { job, isNew } = await createImport({
    ctx,
    input: { format: args.format, ...(domainId ? { domain_id: domainId } : {}), ...(key ? { idempotency_key: key } : {}) },
  });
  if (!isNew && (job.status === "completed" || job.status === "failed")) {
    say(`${args.file} was already imported by job ${job.id} (${job.status}); --again imports it once more.`);
    const done = await getImport({ ctx, id: job.id });
    say(summary(`Job ${job.id}`, { processed: done.processedRows, created: done.createdRows, skipped: done.skippedRows, failed: done.failedRows }));
    if (done.failedRows) say(await writeErrorsFile(ctx, job.id, errorsBase));
    return job.status === "completed" ? 0 : 1;
  }
  const lock = await tryLockJob(run.database, job.id);
  if (!lock) throw new CliError(`Job ${job.id} for this file is being imported by another process.`);
  try {
    const claimed = await claimImport(sys, job.id);
    if (!claimed) throw new CliError(`Job ${job.id} is no longer running.`);
    if (claimed.checkpointLine > 1) say(`Resuming job ${job.id} after line ${fmt(claimed.checkpointLine)} (${fmt(claimed.processedRows)} rows already done).`);
    let isStopping = false;
    run.io.onInterrupt?.(() => {
      if (!isStopping) say("\nStopping after the current batch…");
      isStopping = true;
    });
    const progress = createProgress(run.io, run.size);
    const input = countingStream(run.file, progress.onBytes);
    const started = performance.now();
    const result = await runClaimedJob(sys, claimed, importRowsOf(input.stream, args.format), {
      ...(run.batchSize ? { batchSize: run.batchSize } : {}),
      shouldStop: () => isStopping,
      onBatch: (_o, t) => progress.onRows(t),
    })
      // The CLI reports the error itself, not the worker's "interrupted after line N".
      .catch((error: unknown) => {
        throw error instanceof ImportInterruptedError ? error.cause : error;
      })
      .finally(() => {
        progress.stop();
        input.stream.destroy();
      });
    switch (result.outcome) {
      case "failed": {
        const failed = await getImport({ ctx, id: job.id });
        if (failed.failedRows) say(await writeErrorsFile(ctx, job.id, errorsBase));
        throw new CliError(`${result.reason} Job ${job.id} failed; the rows before it were imported.`);
      }
      case "gone":
        throw new ImportGoneError(job.id);
      case "stopped":
        say(`Stopped after line ${fmt(result.totals.line)}. Run the same command again to resume job ${job.id}.`);
        return 1;
      case "completed": {
        const { totals } = result;
        const elapsed = performance.now() - started;
        say(summary(`Imported ${args.file} as job ${job.id}`, totals, elapsed, "", totals.processed - claimed.processedRows));
        say(totals.failed ? await writeErrorsFile(ctx, job.id, errorsBase) : "No row errors.");
        return 0;
      }
    }
  } finally {
    await lock.release();
  }
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
