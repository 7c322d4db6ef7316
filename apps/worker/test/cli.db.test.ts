import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { importJobs, links } from "@shortener/db";
import { createDomain } from "@shortener/core";
import { createTestUser, unique } from "@shortener/core/testing";
import { useCliFixture } from "./helpers.ts";

/**
 * The CLI opens the database itself, from DATABASE_URL or DATA_DIR. On Postgres the test keeps its own
 * connection open; PGlite is one process at a time, so the test opens the data folder only between runs.
 */
const { dir, withDb, cli } = useCliFixture("importer-cli-");

async function owner() {
  return withDb(async (database) => {
    const user = await createTestUser(database.db);
    const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("d")}.example` } });
    return { userId: user.id, workspaceId: user.workspaceId, email: user.email, domainId: domain.id, domain: domain.name };
  });
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("pnpm importer import", () => {
  it("imports a file with a BOM, CRLF, quoted line breaks and bytes that are not UTF-8, and writes the row errors beside it", { timeout: 120_000 }, async () => {
    const o = await owner();
    const csv = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(
        `url,alias,title\r\nhttps://cli.example/1,c1,"=HYPERLINK(""http://evil.example"")"\r\nhttps://cli.example/2,c2,"two\r\nlines"\r\nfile:///etc/passwd,c3,\r\nhttps://cli.example/4,c4,caf`,
      ),
      Buffer.from([0xe9]),
      Buffer.from(`\r\nhttps://cli.example/5,c1,\r\nhttps://cli.example/6,,plain\r\n`),
    ]);
    const path = file(`${unique("f")}.csv`, csv);
    const run = await cli("import", path, "--user", o.email.toUpperCase(), "--domain", o.domain);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/Imported .* as job \d+: 6 rows in [\d.]+ s \([\d,]+ rows\/s\) — 3 created, 0 skipped, 3 failed\./);
    expect(readFileSync(`${path}.errors.csv`, "utf8")).toBe(
      ["line,field,message", "5,url,The url must start with http:// or https://.", "6,title,The value is not valid UTF-8 text.", "7,alias,The alias is already used on line 2 of this file.", ""].join(
        "\r\n",
      ),
    );
    const stored = await withDb((db) => db.db.select({ alias: links.alias, title: links.title }).from(links).where(eq(links.domainId, o.domainId)));
    expect(stored.find((l) => l.alias === "c1")?.title).toBe('=HYPERLINK("http://evil.example")');
    expect(stored.find((l) => l.alias === "c2")?.title).toBe("two\r\nlines");
    expect(stored).toHaveLength(3);

    // The same command again changes nothing: the file is one job. Its report names the job once ("Job 3:", never "Job 3::")
    // and writes the row errors to a new file, keeping the first.
    const again = await cli("import", path, "--user", o.email, "--domain", o.domain);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/was already imported by job (\d+) \(completed\)/);
    const jobId = /job (\d+)/.exec(again.out)?.[1];
    expect(again.out).toContain(`\nJob ${jobId}: 6 rows — 3 created, 0 skipped, 3 failed.\n`);
    expect(again.out).not.toContain("::");
    expect(again.out).toContain(`Row errors: ${path}.errors-2.csv (${path}.errors.csv is from an earlier run and was kept)`);
    expect(readFileSync(`${path}.errors-2.csv`, "utf8")).toBe(readFileSync(`${path}.errors.csv`, "utf8"));
    expect(
      await withDb((db) =>
        db.db
          .select({ n: sql<number>`count(*)::int` })
          .from(links)
          .where(eq(links.domainId, o.domainId)),
      ),
    ).toEqual([{ n: 3 }]);

    // --again: a new job; aliased rows with the same url are skipped, the row without an alias is a new link.
    // Its row errors go to a third file: the earlier ones are never overwritten.
    writeFileSync(`${path}.errors.csv`, "kept\r\n");
    const newJob = await cli("import", path, "--user", o.email, "--domain", o.domain, "--again");
    expect(newJob.code).toBe(0);
    expect(newJob.out).toMatch(/— 1 created, 2 skipped, 3 failed\./);
    expect(newJob.out).toContain(`Row errors: ${path}.errors-3.csv (${path}.errors.csv is from an earlier run and was kept)`);
    expect(readFileSync(`${path}.errors.csv`, "utf8")).toBe("kept\r\n");
    expect(readFileSync(`${path}.errors-3.csv`, "utf8")).toMatch(/^line,field,message\r\n5,url,/);
  });

  it("checks a file without writing anything on --dry-run", async () => {
    const o = await owner();
    const path = file(`${unique("f")}.csv`, `url,alias\nhttps://dry.example/1,d1\nnot a url,d2\nhttps://dry.example/3,d1\n`);
    const run = await cli("import", path, "--user", o.email, "--domain", o.domain, "--dry-run");
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toContain("Dry run of");
    expect(run.out).toMatch(/\(nothing written\): 3 rows in [\d.]+ s \([\d,]+ rows\/s\) — 1 would be created, 0 would be skipped, 2 failed\./);
    expect(readFileSync(`${path}.errors.csv`, "utf8")).toBe(
      "line,field,message\r\n3,url,The url must not contain spaces or control characters.\r\n4,alias,The alias is already used on line 2 of this file.\r\n",
    );
    await withDb(async (db) => {
      expect(await db.db.select().from(links).where(eq(links.domainId, o.domainId))).toEqual([]);
      expect(await db.db.select().from(importJobs).where(eq(importJobs.workspaceId, o.workspaceId))).toEqual([]);
    });
  });

  it("reports a quote never closed as a row error and imports the rest of the file", async () => {
    const o = await owner();
    const path = file(`${unique("f")}.csv`, `url\nhttps://m.example/1\n"https://m.example/2\nhttps://m.example/3\n`);
    const run = await cli("import", path, "--user", o.email, "--domain", o.domain, "--batch-size", "1");
    expect(run).toMatchObject({ code: 0, err: "" });
    expect(readFileSync(`${path}.errors.csv`, "utf8")).toBe("line,field,message\r\n3,,The row has a quote that is never closed.\r\n");
    await withDb(async (db) => {
      expect((await db.db.select({ url: links.url }).from(links).where(eq(links.domainId, o.domainId))).map((l) => l.url).sort()).toEqual(["https://m.example/1", "https://m.example/3"]);
      expect((await db.db.select({ status: importJobs.status }).from(importJobs).where(eq(importJobs.workspaceId, o.workspaceId)))[0]?.status).toBe("completed");
    });
  });

  it("leaves no errors file behind a dry run without row errors, or one that fails", async () => {
    const o = await owner();
    const clean = file(`${unique("f")}.csv`, `url\nhttps://dry.example/ok\n`);
    expect(await cli("import", clean, "--user", o.email, "--domain", o.domain, "--dry-run")).toMatchObject({ code: 0, err: "" });
    expect(existsSync(`${clean}.errors.csv`)).toBe(false);
    const noUrl = file(`${unique("f")}.csv`, `link\nhttps://dry.example/ok\n`);
    expect(await cli("import", noUrl, "--user", o.email, "--domain", o.domain, "--dry-run")).toMatchObject({ code: 1, err: "The file has no url column.\n" });
    expect(existsSync(`${noUrl}.errors.csv`)).toBe(false);
  });

  it("says what is wrong with the command line, the user or the domain", async () => {
    const o = await owner();
    const path = file(`${unique("f")}.csv`, "url\n");
    expect((await cli("import", path)).code).toBe(2);
    expect((await cli("export", path, "--user", o.email)).code).toBe(2);
    expect(await cli("import", path, "--user", "nobody@example.test")).toMatchObject({ code: 1, err: "No user with the email nobody@example.test.\n" });
    expect(await cli("import", path, "--user", o.email, "--domain", "elsewhere.example")).toMatchObject({ code: 1, err: `elsewhere.example is not one of ${o.email}'s domains.\n` });
    expect(await cli("import", join(dir, "missing.csv"), "--user", o.email)).toMatchObject({ code: 1 });
    expect(existsSync(join(dir, "missing.csv.errors.csv"))).toBe(false);
  });
});
