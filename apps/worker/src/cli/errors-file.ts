import { createWriteStream, existsSync, type WriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import { streamImportErrors, type Ctx, type RowError } from "@shortener/core";
import { ERRORS_CSV_HEADER, formatErrorsCsv } from "@shortener/csv";

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
export function renamedNote(path: string, base: string): string {
  return path === base ? "" : ` (${base} is from an earlier run and was kept)`;
}

/** An errors file opened at the first row error written to it. `close` resolves to its path, or undefined if none was. */
export function lazyErrorsFile(base: string) {
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
export async function writeErrorsFile(ctx: Ctx, jobId: number, base: string): Promise<string> {
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
