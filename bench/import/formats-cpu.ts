/**
 * The CPU side of export-file imports (issue #31), without the database: each format's file of the same
 * BENCH_ROWS links (export-files.ts says why the comparison is fair) read in memory, as the importer reads
 * it (`importRowsOf`: the CSV reader, then the format's translator), then checked row by row as the
 * importer checks it (`checkImportRow`, against a scope with one default domain). Plain CSV of the same
 * links is the baseline. Rounds are interleaved (csv, every format, csv, every format, …) and each
 * figure is the median of its rounds. Each pass is timed in this process's CPU time (user + system), not
 * wall-clock time: on a machine shared with other work, time spent waiting for a core is not counted.
 *
 *   BENCH_ROWS=200000 BENCH_ROUNDS=5 pnpm bench:import:cpu     # BENCH_FORMATS=bitly,dub to pick some; BENCH_CHECK=0: reading only
 */
import { checkImportRow, type ImportScope } from "@shortener/core";
import { importRowsOf } from "@shortener/worker";
import { log } from "../common.ts";
import { EXPORT_FILES, exportFileChunk, type ExportFileShape } from "./export-files.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHECK = process.env.BENCH_CHECK !== "0";
const FORMATS = [
  "csv",
  ...(process.env.BENCH_FORMATS ?? Object.keys(EXPORT_FILES).join(","))
    .split(",")
    .map((s) => s.trim())
    .filter((f) => f !== "csv"),
];

const scope: ImportScope = {
  jobId: 1,
  workspaceId: 1,
  defaultDomainId: 1,
  domainNames: new Map([[1, "go.bench.test"]]),
  domainIds: new Map([["go.bench.test", 1]]),
  spaceIds: new Set(),
  pixelIds: new Set(),
  servedNames: new Set(["go.bench.test"]),
};

/** A format's whole file in memory, in the ~64 KiB pieces a stream would bring. */
function fileOf(format: string): string[] {
  const pieces = [`${(EXPORT_FILES[format] as ExportFileShape).header}\n`];
  for (let i = 0; i < ROWS; i += 500) pieces.push(exportFileChunk(format, i, Math.min(i + 500, ROWS)));
  return pieces;
}

async function* streamOf(pieces: readonly string[]): AsyncGenerator<string> {
  yield* pieces;
}

/** CPU seconds to read (and translate) every row; with `check`, also to check each one. Throws unless every row passes. */
async function pass(format: string, pieces: readonly string[], check: boolean): Promise<number> {
  const now = new Date();
  let rows = 0;
  let failed = 0;
  const started = process.cpuUsage();
  for await (const row of importRowsOf(streamOf(pieces), format as Parameters<typeof importRowsOf>[1])) {
    rows++;
    if (check && !checkImportRow(row, scope, now).ok) failed++;
    else if (row.error !== undefined) failed++;
  }
  const used = process.cpuUsage(started);
  const seconds = (used.user + used.system) / 1e6;
  if (rows !== ROWS || failed) throw new Error(`${format}: ${rows} rows read, ${failed} refused`);
  return seconds;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

async function main(): Promise<void> {
  const files = new Map(FORMATS.map((f) => [f, fileOf(f)]));
  const read = new Map<string, number[]>(FORMATS.map((f) => [f, []]));
  const checked = new Map<string, number[]>(FORMATS.map((f) => [f, []]));
  // A warm-up round, not counted: every code path compiled before the first timed one.
  for (const f of FORMATS) await pass(f, files.get(f) as string[], CHECK);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const f of FORMATS) {
      read.get(f)?.push(await pass(f, files.get(f) as string[], false));
      if (CHECK) checked.get(f)?.push(await pass(f, files.get(f) as string[], true));
    }
    log(`round ${round}/${ROUNDS}`);
  }
  const csvRead = median(read.get("csv") as number[]);
  const csvChecked = CHECK ? median(checked.get("csv") as number[]) : NaN;
  const us = (seconds: number) => ((seconds * 1e6) / ROWS).toFixed(2);
  const lines = [
    `Export files, CPU only: ${ROWS.toLocaleString("en-US")} rows in memory, CPU time, medians of ${ROUNDS} interleaved rounds, ${new Date().toISOString().slice(0, 16)}Z`,
    "",
    "| format | bytes/row | read µs/row | read × CSV time | read + check µs/row | read + check × CSV time |",
    "|---|---:|---:|---:|---:|---:|",
    ...FORMATS.map((f) => {
      const bytes = (files.get(f) as string[]).reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
      const r = median(read.get(f) as number[]);
      const c = CHECK ? median(checked.get(f) as number[]) : NaN;
      return `| ${f} | ${(bytes / ROWS).toFixed(1)} | ${us(r)} | ${(r / csvRead).toFixed(2)} | ${CHECK ? us(c) : "–"} | ${CHECK ? (c / csvChecked).toFixed(2) : "–"} |`;
    }),
  ];
  console.log(`\n${lines.join("\n")}\n`);
}

await main();
