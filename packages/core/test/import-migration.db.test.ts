import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows, type Database } from "@shortener/db";
import { claimImport, completeImport, createDomain, createImport, getAccountStats, getImport, getStats, getStatsSummary, runImport, streamImportErrors, type ImportRow } from "@shortener/core";
import { createTestUser, openTestDb, unique } from "@shortener/core/testing";

/**
 * The migration columns through the real import pipeline (issue #31, docs/adr/0049-live-migration.md):
 * a link's creation date, targeting and carried clicks are written; per-day clicks land in the link's
 * and the account's rollups, counted as clicks and marked as imported; a bad row is refused with its alias.
 */
let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});
const sys = () => ({ db: database.db, now: () => new Date() });

async function* stream(rows: ImportRow[]) {
  yield* rows;
}

describe("import rows with the migration columns", () => {
  it("writes dates, targeting and clicks, and rolls the days up as imported clicks", async () => {
    const user = await createTestUser(database.db);
    const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique("m")}.example` } });
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const rows: ImportRow[] = [
      {
        line: 2,
        fields: {
          url: "https://example.com/a",
          alias: "hist",
          domain: domain.name,
          created_at: "2021-03-04T05:06:07.890Z",
          clicks: "50",
          clicks_by_day: `${yesterday}=12;${today}=8`,
          tags: "x;y",
          platform_target: '[{"key":"iOS","value":"https://apps.example/"}]',
        },
      },
      { line: 3, fields: { url: "https://example.com/b", alias: "other", domain: domain.name, clicks_by_day: `${today}=5` } },
      { line: 4, fields: { url: "https://example.com/c", alias: "bad-geo", domain: domain.name, country_target: '[{"key":"XX","value":"https://x.example/"}]' } },
    ];
    const { job } = await createImport({ ctx: user.ctx, input: { total_rows: rows.length } });
    const claimed = await claimImport(sys(), job.id);
    if (!claimed) throw new Error("not claimed");
    await runImport({ ctx: sys(), job: claimed, rows: stream(rows), options: { batchSize: 2 } });
    await completeImport(sys(), job.id);
    expect(await getImport({ ctx: user.ctx, id: job.id })).toMatchObject({ createdRows: 2, failedRows: 1 });
    const errors: unknown[] = [];
    for await (const page of await streamImportErrors({ ctx: user.ctx, id: job.id })) errors.push(...page);
    expect(errors).toContainEqual({ line: 4, field: "country.0.key", message: "The country must be an ISO 3166-1 alpha-2 code.", alias: "bad-geo" });
    expect(errors.every((e) => (e as { line: number; alias: string }).line === 4 && (e as { alias: string }).alias === "bad-geo")).toBe(true);

    const [hist] = await queryRows<{ id: number; clicks: string; imported_clicks: string; created_at: Date | string; target_type: number; platform_target: unknown }>(
      database.db,
      sql`select id, clicks, imported_clicks, created_at, target_type, platform_target from links where domain_id = ${domain.id} and alias = 'hist'`,
    );
    expect(hist).toBeDefined();
    expect([Number(hist?.clicks), Number(hist?.imported_clicks), new Date(hist?.created_at as string).toISOString(), hist?.target_type]).toEqual([50, 50, "2021-03-04T05:06:07.890Z", 2]);
    expect(hist?.platform_target).toEqual([{ key: "iOS", value: "https://apps.example/" }]);

    const linkId = Number(hist?.id);
    const summary = await getStatsSummary({ ctx: user.ctx, input: { link_id: linkId, from: yesterday, to: today } });
    expect(summary).toMatchObject({ clicks: 20, importedClicks: 20, uniqueVisitors: 0, bots: 0 });
    const daily = await getStats({ ctx: user.ctx, input: { link_id: linkId, name: "clicks", from: yesterday, to: today } });
    expect(daily.data.map((r) => [r.value, r.count])).toEqual([
      [yesterday, 12],
      [today, 8],
    ]);
    const account = await getAccountStats({ ctx: user.ctx, input: { name: "summary", from: yesterday, to: today } });
    expect(account).toMatchObject({ kind: "summary", clicks: 25, importedClicks: 25 });
    const top = await getAccountStats({ ctx: user.ctx, input: { name: "links", from: yesterday, to: today } });
    expect(top.kind === "list" ? top.data.map((r) => [r.id, r.count]) : null).toEqual([
      [linkId, 20],
      [expect.any(Number), 5],
    ]);
  });
});
