import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { importJobs, importSourceParts } from "@shortener/db";
import { createDomain, getImport } from "@shortener/core";
import { createTestUser, unique } from "@shortener/core/testing";
import { readCsvRows } from "@shortener/csv";
import { compareJob, hostileFiles, jobEndOf } from "../src/testing/hostile-files.ts";
import { useCliFixture } from "./helpers.ts";

/**
 * The CLI's side of the hostile files: each is imported with `pnpm importer import`, and must end its
 * job `completed` (exit 0) or `failed` (exit 1, the reason on stderr), with the row errors in the
 * errors file beside it and in the database. The CLI opens the database itself: on PGlite (one process
 * at a time) the test opens the data folder only between runs. A file whose header cannot be read (empty,
 * no url column, a header row too long) is refused before a job exists: "… Nothing was imported.", no job.
 */
const { dir, withDb, cli } = useCliFixture("importer-hostile-");

async function errorsFileRows(path: string) {
  const rows = [];
  for await (const row of readCsvRows([readFileSync(path)])) rows.push(row.fields);
  return rows.map((r) => ({ line: Number(r?.line), field: r?.field === "" ? null : (r?.field ?? null), message: r?.message ?? "" }));
}

const FILES = hostileFiles();
type Owner = { user: Awaited<ReturnType<typeof createTestUser>>; domain: { id: number; name: string } };
const owners = new Map<string, Owner>();
const runs = new Map<string, { code: number; out: string; err: string; path: string }>();

describe("the CLI ends a job whatever its file holds", () => {
  beforeAll(async () => {
    // One user and domain a file, made in one opening of the database (PGlite opens in seconds).
    await withDb(async (database) => {
      for (const file of FILES) {
        const user = await createTestUser(database.db);
        const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("h")}.example` } });
        owners.set(file.name, { user, domain });
      }
    });
  });

  it.each(FILES.map((f) => [f.name, f] as const))("%s: exit status, message and errors file", { timeout: 60_000 }, async (_name, file) => {
    const { user, domain } = owners.get(file.name) as Owner;
    const path = join(dir, `${unique("f")}.csv`);
    writeFileSync(path, file.bytes);
    const run = await cli("import", path, "--user", user.email, "--domain", domain.name);
    runs.set(file.name, { ...run, path });
    if (file.job.status === "completed") {
      expect(run).toMatchObject({ code: 0, err: "" });
      expect(run.out).toMatch(/Imported .* as job \d+: /);
    } else if (isHeaderRefusal(file)) {
      expect(run).toMatchObject({ code: 1, err: `${file.job.failureReason} Nothing was imported.\n` });
    } else {
      expect(run.code).toBe(1);
      expect(run.err).toMatch(new RegExp(`^${escapeRegExp(file.job.failureReason ?? "")} Job \\d+ failed; the rows before it were imported\\.\\n$`));
    }
    const hasErrors = Array.isArray(file.job.errors) ? file.job.errors.length > 0 : true;
    expect(existsSync(`${path}.errors.csv`)).toBe(hasErrors);
    expect(run.out.includes("Row errors: ")).toBe(hasErrors);
  });

  it("leaves each job completed or failed as expected, its row errors in the errors file, and no stored source", { timeout: 60_000 }, async () => {
    const problems: Record<string, string[]> = {};
    await withDb(async (database) => {
      for (const file of FILES) {
        const { user } = owners.get(file.name) as Owner;
        const run = runs.get(file.name);
        const [job] = await database.db.select({ id: importJobs.id }).from(importJobs).where(eq(importJobs.workspaceId, user.workspaceId));
        if (run && isHeaderRefusal(file)) {
          if (job) problems[file.name] = [`job ${job.id} made for a file refused by its header`];
          continue;
        }
        if (!run || !job) {
          problems[file.name] = ["no CLI run or no job"];
          continue;
        }
        const end = await getImport({ ctx: { ...user.ctx, db: database.db }, id: job.id });
        const found = compareJob(file, jobEndOf(end));
        const [parts] = await database.db
          .select({ n: sql<number>`count(*)::int` })
          .from(importSourceParts)
          .where(eq(importSourceParts.jobId, job.id));
        if (parts?.n !== 0) found.push(`${parts?.n} source parts left`);
        if (end.failedRows > 0 && end.errors.length < 1000 && JSON.stringify(await errorsFileRows(`${run.path}.errors.csv`)) !== JSON.stringify(end.errors)) {
          found.push("the errors file differs from the job's row errors");
        }
        if (found.length) problems[file.name] = found;
      }
    });
    expect(problems).toEqual({});
  });
});

/** A file the CLI refuses on its header alone, before a job exists (the header check of run-cli.ts). */
function isHeaderRefusal(file: (typeof FILES)[number]): boolean {
  return file.job.status === "failed" && /^(The file has no url column\.|The file is empty\.|The file cannot be read at line 1:)/.test(file.job.failureReason ?? "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
