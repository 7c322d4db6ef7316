import { createReadStream } from "node:fs";
import { PassThrough } from "node:stream";
import cliProgress from "cli-progress";
import type { ImportTotals } from "@shortener/core";
import type { CliIo } from "./io.ts";

export const fmt = (n: number) => n.toLocaleString("en-US");

/** The file as a stream, counting the bytes that went through (the progress bar's position). */
export function countingStream(file: string, onBytes: (n: number) => void) {
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

export type Progress = { onBytes: (n: number) => void; onRows: (t: ImportTotals) => void; stop: () => void };

/** A bar with rows/s and ETA on a terminal; a plain line every few seconds otherwise (logs, CI). */
export function createProgress(io: CliIo, totalBytes: number): Progress {
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

/** The closing line of a run: rows, speed, and what became of them. */
export function summary(title: string, t: Omit<ImportTotals, "line">, elapsedMs?: number, verb = "", rowsThisRun = t.processed): string {
  const timing = elapsedMs === undefined ? "" : ` in ${(elapsedMs / 1000).toFixed(1)} s (${fmt(Math.round(rowsThisRun / Math.max(elapsedMs / 1000, 0.001)))} rows/s)`;
  return `${title}: ${fmt(t.processed)} rows${timing} — ${fmt(t.created)} ${verb}created, ${fmt(t.skipped)} ${verb}skipped, ${fmt(t.failed)} failed.`;
}
