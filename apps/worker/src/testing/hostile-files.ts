import { createHash } from "node:crypto";
import type { ImportJob, RowError } from "@shortener/core";

/**
 * Hostile import files (issue 12 item 3) and what must become of each, shared by the tests that run
 * them through the CLI (apps/worker/test/hostile-cli.db.test.ts), the worker
 * (apps/worker/test/hostile-worker.db.test.ts) and the API upload with its worker
 * (launcher/test/hostile-imports.db.test.ts). Every file ends: the job is `completed` or `failed`,
 * never left `running`, and its stored source is gone.
 */

export type ExpectedRowError = { line: number; field: string | null; message?: string };

export type HostileFile = {
  name: string;
  bytes: Buffer;
  /** The job's end: its status, failure reason, created rows and row errors (exactly, or only counted when random). */
  job: { status: "completed" | "failed"; failureReason?: string; created: number; errors: ExpectedRowError[] | { count: "every row" } };
  /** `POST /api/v1/imports`: 202 and the job above, or a 422 on `file` (no job at all). */
  upload: { status: 202 } | { status: 422; file: string };
};

/** Deterministic "random" bytes: a SHA-256 chain from a seed. */
export function garbage(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  let block = createHash("sha256").update(seed).digest();
  for (let i = 0; i < length; i += block.length) {
    block.copy(out, i, 0, Math.min(block.length, length - i));
    block = createHash("sha256").update(block).digest();
  }
  return out;
}

const ROW_TOO_LONG = "The row is longer than 65,536 characters, or a quote in it is never closed.";
const NOT_UTF8 = "The value is not valid UTF-8 text.";

/** The files; `h` is a host the rows point at (any host not served by the test's service). */
export function hostileFiles(h = "https://hostile.example"): HostileFile[] {
  const text = (s: string) => Buffer.from(s);
  return [
    {
      name: "a stray quote inside a field, and a quote closing early",
      bytes: text(`url,alias,title\n${h}/1,q1,fine\n${h}/2,q"2,x\n${h}/3,q3,"it"s"\n${h}/4,q4,fine\n`),
      job: { status: "completed", created: 3, errors: [{ line: 3, field: "alias" }] },
      upload: { status: 202 },
    },
    {
      name: "a quote never closed",
      bytes: text(`url,alias\n${h}/1,u1\n"${h}/2,u2\n${h}/3,u3\n`),
      job: { status: "completed", created: 2, errors: [{ line: 3, field: null, message: "The row has a quote that is never closed." }] },
      upload: { status: 202 },
    },
    {
      name: "NUL bytes in a field and in a column not imported",
      bytes: text(`url,alias,title,notes\n${h}/1,n1,a\u0000b,x\n${h}/2,n2,ok,\u0000\u0000\n`),
      job: { status: "completed", created: 1, errors: [{ line: 2, field: "title", message: NOT_UTF8 }] },
      upload: { status: 202 },
    },
    {
      name: "a 5 MB line",
      bytes: Buffer.concat([text(`url,alias\n${h}/1,l1\n${h}/2,`), Buffer.alloc(5 * 1024 * 1024, "y"), text(`\n${h}/3,l3\n`)]),
      job: { status: "completed", created: 2, errors: [{ line: 3, field: null, message: ROW_TOO_LONG }] },
      upload: { status: 202 },
    },
    {
      name: "bytes that are not UTF-8",
      bytes: Buffer.concat([text(`url,alias,title\n${h}/1,i1,caf`), Buffer.from([0xe9, 0xff, 0xfe]), text(`\n${h}/2,i2,ok\n`)]),
      job: { status: "completed", created: 1, errors: [{ line: 2, field: "title", message: NOT_UTF8 }] },
      upload: { status: 202 },
    },
    {
      name: "binary garbage after the header",
      bytes: Buffer.concat([text("url,alias,title\n"), garbage("after the header", 256 * 1024)]),
      job: { status: "completed", created: 0, errors: { count: "every row" } },
      upload: { status: 202 },
    },
    {
      name: "binary garbage as the whole file",
      bytes: garbage("whole file", 64 * 1024),
      job: { status: "failed", failureReason: "The file has no url column.", created: 0, errors: [] },
      upload: { status: 422, file: "The file has no url column." },
    },
    {
      name: "an empty file",
      bytes: Buffer.alloc(0),
      job: { status: "failed", failureReason: "The file is empty.", created: 0, errors: [] },
      upload: { status: 422, file: "The file is empty." },
    },
    {
      name: "a header only",
      bytes: text("url,alias,title\r\n"),
      job: { status: "completed", created: 0, errors: [] },
      upload: { status: 422, file: "The file has no rows after its header." },
    },
    {
      name: "no url column",
      bytes: text(`link,alias\n${h}/1,m1\n`),
      job: { status: "failed", failureReason: "The file has no url column.", created: 0, errors: [] },
      upload: { status: 422, file: "The file has no url column." },
    },
    {
      name: "a header too long to read",
      bytes: text(`url,${"c,".repeat(40_000)}\n${h}/1\n`),
      job: { status: "failed", failureReason: `The file cannot be read at line 1: The header row cannot be read: ${ROW_TOO_LONG}`, created: 0, errors: [] },
      upload: { status: 422, file: `The header row cannot be read: ${ROW_TOO_LONG}` },
    },
    {
      name: "huge field counts: 15,000 columns, a row of 30,000 cells, a row of 70,000",
      bytes: text(`url,alias${",x".repeat(15_000)}\n${h}/1,w1${",v".repeat(15_000)}\n${h}/2,w2${",".repeat(30_000)}\n${h}/3,w3${",".repeat(70_000)}\n${h}/4,w4\n`),
      job: { status: "completed", created: 3, errors: [{ line: 4, field: null, message: ROW_TOO_LONG }] },
      upload: { status: 202 },
    },
  ];
}

/** A job as every path sees it in the end. */
export type JobEnd = {
  status: string;
  failureReason: string | null;
  processed: number;
  created: number;
  skipped: number;
  failed: number;
  errors: Array<{ line: number; field: string | null; message: string }>;
};

/** A job as core's `getImport` reads it, as a `JobEnd`. */
export function jobEndOf(job: ImportJob & { errors: RowError[] }): JobEnd {
  return {
    status: job.status,
    failureReason: job.failureReason,
    processed: job.processedRows,
    created: job.createdRows,
    skipped: job.skippedRows,
    failed: job.failedRows,
    errors: job.errors,
  };
}

/** What differs from the file's expectation (empty when none): one message each, for a readable failure. */
export function compareJob(file: HostileFile, end: JobEnd): string[] {
  const problems: string[] = [];
  const want = file.job;
  if (end.status !== want.status) problems.push(`status ${end.status}, expected ${want.status}`);
  if ((end.failureReason ?? undefined) !== want.failureReason) problems.push(`failure reason ${JSON.stringify(end.failureReason)}, expected ${JSON.stringify(want.failureReason)}`);
  if (end.created !== want.created) problems.push(`${end.created} created, expected ${want.created}`);
  if (end.processed !== end.created + end.skipped + end.failed) problems.push(`processed ${end.processed} ≠ created + skipped + failed`);
  if (end.errors.some((e) => !Number.isInteger(e.line) || e.line < 2)) problems.push("a row error without a data line");
  if (Array.isArray(want.errors)) {
    const expected = want.errors;
    const got = end.errors.map((e, i) => ({ line: e.line, field: e.field, ...(expected[i]?.message !== undefined ? { message: e.message } : {}) }));
    if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`row errors ${JSON.stringify(end.errors)}, expected ${JSON.stringify(expected)}`);
  } else {
    if (end.failed !== end.processed || end.processed === 0) problems.push(`${end.failed} of ${end.processed} rows failed, expected every row`);
  }
  return problems;
}
