import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, statSync, type WriteStream } from "node:fs";
import { resolve } from "node:path";
import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import {
  checkImport,
  claimImport,
  completeImport,
  createImport,
  failImport,
  findDomainByName,
  findUserByEmail,
  getImport,
  normalizeDomainName,
  runImport,
  streamImportErrors,
  type Ctx,
  type ImportTotals,
  type RowError,
} from "@shortener/core";
import { ERRORS_CSV_HEADER, formatErrorsCsv } from "@shortener/csv";
import { lockDataDir, migrate, openDb, type Database } from "@shortener/db";
import { parseImporterEnv } from "./env.ts";
import { tryLockJob } from "./locks.ts";
import { describeFileError, importRowsOf } from "./process-job.ts";

export const USAGE = `Usage: pnpm importer import <file.csv> --user <email> [--domain <name>] [--dry-run] [--again]

Imports a CSV of links (docs/importing.md) straight into the database as <email>'s links.
  --domain <name>   the domain of rows that name none (one of the user's domains)
  --dry-run         check every row and report, write nothing
  --again           import the file again as a new job (by default the same file, user and
                    domain are one job: running the command again resumes or reports it)
  --batch-size <n>  rows per transaction (default 5000)
The database is DATABASE_URL, else the embedded one in DATA_DIR (default ./.data), as for pnpm start.
Row errors go to <file.csv>.errors.csv, or <file.csv>.errors-2.csv, -3, … when that file exists (an
errors file is never overwritten). Exit status: 0 done (even with row errors), 1 failed, 2 usage.`;

/** The embedded database's settings for a CLI import (docs/adr/0013-import-memory-and-storage.md). */
export const PGLITE_CLI_SETTINGS = { shared_buffers: "48MB" } as const;

export type CliIo = {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  /** Called with a function that asks the import to stop after its current batch (the CLI wires SIGINT to it). */
  onInterrupt?: (stop: () => void) => void;
};

class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** The operator CLI: `import <file> --user <email> …`. Returns the exit status. */
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
    const file = resolve(args.file);
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new Error("not a file");
      size = stat.size;
    } catch {
      throw new CliError(`Cannot read ${args.file}: no such file.`);
    }

    if (settings.DATABASE_URL) database = await openDb({ url: settings.DATABASE_URL, poolSize: 4 });
    else {
      const dataDir = resolve(settings.DATA_DIR);
      try {
        unlock = lockDataDir(dataDir);
      } catch (error) {
        throw new CliError(`${(error as Error).message} (the embedded database is one process at a time: stop the service, or import through the API).`);
      }
      // A small buffer pool: PGlite's 128 MB default is resident memory in its WebAssembly heap, and an
      // import gains nothing measurable from it (the operating system caches the files anyway).
      database = await openDb({ dataDir, pgliteSettings: PGLITE_CLI_SETTINGS });
    }
    await migrate(database);
    const sys = { db: database.db, now: () => new Date() };

    const user = await findUserByEmail(sys, args.user);
    if (!user) throw new CliError(`No user with the email ${args.user}.`);
    const ctx: Ctx = { ...sys, actor: { userId: user.id, role: user.role } };
    let domainId: number | null = null;
    if (args.domain !== undefined) {
      const name = normalizeDomainName(args.domain);
      // The user's own domain of that name, verified or not (an unverified domain takes links too).
      const domain = name ? await findDomainByName({ ctx, name }) : null;
      if (!domain) throw new CliError(`${args.domain} is not one of ${user.email}'s domains.`);
      domainId = domain.id;
    }
    const batchSize = args.batchSize ?? settings.IMPORT_BATCH_SIZE;
    const errorsBase = `${file}.errors.csv`;

    if (args.isDryRun) {
      // The errors file is opened at the first row error: a run without any leaves no file behind.
      const errors = lazyErrorsFile(errorsBase);
      const progress = createProgress(io, size);
      const input = countingStream(file, progress.onBytes);
      const started = performance.now();
      try {
        const { totals } = await checkImport({
          ctx: sys,
          userId: user.id,
          defaultDomainId: domainId,
          rows: importRowsOf(input.stream),
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

    // One job per file content, user and domain unless --again: running the command again resumes it.
    const key = args.isAgain ? undefined : `cli:${await sha256File(file)}:${domainId ?? "-"}`;
    const { job, isNew } = await createImport({ ctx, input: { ...(domainId ? { domain_id: domainId } : {}), ...(key ? { idempotency_key: key } : {}) } });
    if (!isNew && (job.status === "completed" || job.status === "failed")) {
      say(`${args.file} was already imported by job ${job.id} (${job.status}); --again imports it once more.`);
      const done = await getImport({ ctx, id: job.id });
      say(summary(`Job ${job.id}`, { processed: done.processedRows, created: done.createdRows, skipped: done.skippedRows, failed: done.failedRows }));
      if (done.failedRows) say(await writeErrorsFile(ctx, job.id, errorsBase));
      return job.status === "completed" ? 0 : 1;
    }
    const lock = await tryLockJob(database, job.id);
    if (!lock) throw new CliError(`Job ${job.id} for this file is being imported by another process.`);
    try {
      const claimed = await claimImport(sys, job.id);
      if (!claimed) throw new CliError(`Job ${job.id} is no longer running.`);
      if (claimed.checkpointLine > 1) say(`Resuming job ${job.id} after line ${fmt(claimed.checkpointLine)} (${fmt(claimed.processedRows)} rows already done).`);
      let isStopping = false;
      io.onInterrupt?.(() => {
        if (!isStopping) say("\nStopping after the current batch…");
        isStopping = true;
      });
      const progress = createProgress(io, size);
      const input = countingStream(file, progress.onBytes);
      const started = performance.now();
      let result: { isFinished: boolean; totals: ImportTotals };
      try {
        result = await runImport({
          ctx: sys,
          job: claimed,
          rows: importRowsOf(input.stream),
          options: { ...(batchSize ? { batchSize } : {}), shouldStop: () => isStopping, onBatch: (_o, t) => progress.onRows(t) },
        });
      } catch (error) {
        progress.stop();
        input.stream.destroy();
        const reason = describeFileError(error);
        if (!reason) throw error;
        await failImport(sys, job.id, reason);
        const failed = await getImport({ ctx, id: job.id });
        if (failed.failedRows) say(await writeErrorsFile(ctx, job.id, errorsBase));
        throw new CliError(`${reason} Job ${job.id} failed; the rows before it were imported.`);
      }
      progress.stop();
      input.stream.destroy();
      if (!result.isFinished) {
        say(`Stopped after line ${fmt(result.totals.line)}. Run the same command again to resume job ${job.id}.`);
        return 1;
      }
      await completeImport(sys, job.id);
      const elapsed = performance.now() - started;
      say(summary(`Imported ${args.file} as job ${job.id}`, result.totals, elapsed, "", result.totals.processed - claimed.processedRows));
      say(result.totals.failed ? await writeErrorsFile(ctx, job.id, errorsBase) : "No row errors.");
      return 0;
    } finally {
      await lock.release();
    }
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

type CliArgs = { file: string; user: string; domain?: string; isDryRun: boolean; isAgain: boolean; batchSize?: number };

function parseCliArgs(argv: string[]): CliArgs | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        user: { type: "string" },
        domain: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        again: { type: "boolean", default: false },
        "batch-size": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  const [command, file, ...rest] = positionals;
  if (command !== "import" || !file || rest.length) throw new CliError(USAGE, 2);
  if (!values.user) throw new CliError(`--user <email> is required.\n\n${USAGE}`, 2);
  let batchSize: number | undefined;
  if (values["batch-size"] !== undefined) {
    batchSize = Number(values["batch-size"]);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 50_000) throw new CliError("--batch-size must be an integer from 1 to 50000.", 2);
  }
  return {
    file,
    user: values.user,
    ...(values.domain !== undefined ? { domain: values.domain } : {}),
    isDryRun: values["dry-run"] ?? false,
    isAgain: values.again ?? false,
    ...(batchSize ? { batchSize } : {}),
  };
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The file as a stream, counting the bytes that went through (the progress bar's position). */
function countingStream(file: string, onBytes: (n: number) => void) {
  let bytes = 0;
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 }).pipe(
    new PassThrough({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        onBytes(bytes);
        done(null, chunk);
      },
    }),
  );
  return { stream };
}

/** A bar with rows/s and ETA on a terminal; a plain line every few seconds otherwise (logs, CI). */
function createProgress(io: CliIo, totalBytes: number) {
  const started = performance.now();
  let rows = 0;
  let bytes = 0;
  const rate = () => {
    const s = (performance.now() - started) / 1000;
    return s > 0 ? Math.round(rows / s) : 0;
  };
  if (io.stdout.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: "{bar} {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted}",
        hideCursor: true,
        stream: io.stdout as NodeJS.WritableStream & { isTTY: boolean } as never,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(totalBytes, 1), 0, { rows: "0", rate: "0" });
    return {
      onBytes: (n: number) => void (bytes = n),
      onRows: (t: ImportTotals) => {
        rows = t.processed;
        bar.update(bytes, { rows: fmt(rows), rate: fmt(rate()) });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = 0;
  return {
    onBytes: (n: number) => void (bytes = n),
    onRows: (t: ImportTotals) => {
      rows = t.processed;
      const now = performance.now();
      if (now - lastLine < 2000) return;
      lastLine = now;
      const fraction = totalBytes ? bytes / totalBytes : 1;
      const elapsed = (now - started) / 1000;
      const eta = fraction > 0 ? Math.max(0, Math.round(elapsed / fraction - elapsed)) : 0;
      io.stdout.write(`progress: ${fmt(rows)} rows, ${Math.round(fraction * 100)}%, ${fmt(rate())} rows/s, ETA ${eta} s\n`);
    },
    stop: () => {},
  };
}

function summary(title: string, t: Omit<ImportTotals, "line">, elapsedMs?: number, verb = "", rowsThisRun = t.processed): string {
  const timing = elapsedMs === undefined ? "" : ` in ${(elapsedMs / 1000).toFixed(1)} s (${fmt(Math.round(rowsThisRun / Math.max(elapsedMs / 1000, 0.001)))} rows/s)`;
  return `${title}: ${fmt(t.processed)} rows${timing} — ${fmt(t.created)} ${verb}created, ${fmt(t.skipped)} ${verb}skipped, ${fmt(t.failed)} failed.`;
}

/**
 * Where a run writes its row errors: `base` (`<file>.errors.csv`) unless it exists, else the first free
 * `<file>.errors-N.csv`. An errors file is never overwritten: an earlier run's (say, before `--again`)
 * stays as it was.
 */
export function freeErrorsPath(base: string): string {
  if (!existsSync(base)) return base;
  const stem = base.replace(/\.csv$/, "");
  for (let n = 2; ; n++) {
    const path = `${stem}-${n}.csv`;
    if (!existsSync(path)) return path;
  }
}

/** The line's tail when the errors went to a numbered file: says why. */
function renamedNote(path: string, base: string): string {
  return path === base ? "" : ` (${base} is from an earlier run and was kept)`;
}

/** An errors file opened at the first row error written to it. `close` resolves to its path, or undefined if none was. */
function lazyErrorsFile(base: string) {
  let out: WriteStream | undefined;
  let path: string | undefined;
  return {
    write(errors: RowError[]): void {
      if (!errors.length) return;
      if (!out) {
        path = freeErrorsPath(base);
        out = createWriteStream(path);
        out.write(ERRORS_CSV_HEADER);
      }
      out.write(formatErrorsCsv(errors));
    },
    async close(): Promise<string | undefined> {
      if (!out) return undefined;
      out.end();
      await finished(out);
      return path;
    },
  };
}

/** Every row error of the job, from the database (so a resumed job's file has the earlier runs' too), in a new file. Returns the line to print. */
async function writeErrorsFile(ctx: Ctx, jobId: number, base: string): Promise<string> {
  const path = freeErrorsPath(base);
  const out = createWriteStream(path);
  out.write(ERRORS_CSV_HEADER);
  for await (const page of await streamImportErrors({ ctx, id: jobId })) {
    if (!out.write(formatErrorsCsv(page as RowError[]))) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  out.end();
  await finished(out);
  return `Row errors: ${path}${renamedNote(path, base)}`;
}
