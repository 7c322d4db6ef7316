import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateVisitorSalt, listClickPartitions } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import { queryRows, sql, type Database } from "@shortener/db";
import { createClickPartitionKeeper } from "../src/index.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const names = async () => (await listClickPartitions(database.db)).map((p) => p.name);
const quiet = { info() {}, warn() {}, error() {} };

describe("the worker's click partition upkeep (CONTRACT §20)", () => {
  it("runs at start and on its timer, applies the retention, and stops on close", async () => {
    let now = new Date("2034-02-10T00:00:00Z");
    const errors: unknown[] = [];
    const keeper = createClickPartitionKeeper({ database, now: () => now, log: { ...quiet, error: (e) => errors.push(e) }, retentionDays: 31, intervalMs: 20 });
    await keeper.start();
    await keeper.start(); // a second start adds no second timer
    expect(await names()).toEqual(expect.arrayContaining(["clicks_2034_02", "clicks_2034_03", "clicks_2034_04"]));

    now = new Date("2034-05-02T00:00:00Z");
    // The timer's run takes its time on a loaded machine: wait for it (up to 20 s), never a fixed sleep.
    await expect.poll(names, { timeout: 20_000, interval: 50 }).not.toContain("clicks_2034_03");
    const later = await names();
    expect(later).toEqual(expect.arrayContaining(["clicks_2034_04", "clicks_2034_05", "clicks_2034_06", "clicks_2034_07"]));
    // Retention of 31 days from May 2nd: February and March are past it, April is not.
    expect(later).not.toContain("clicks_2034_02");
    expect(later).not.toContain("clicks_2034_03");

    await keeper.close();
    now = new Date("2035-01-01T00:00:00Z");
    await sleep(100);
    expect(await names()).not.toContain("clicks_2035_01");
    expect(errors).toEqual([]);
  });

  it("without a retention nothing is dropped", async () => {
    const keeper = createClickPartitionKeeper({ database, now: () => new Date("2040-01-01T00:00:00Z"), log: quiet, retentionDays: undefined });
    expect(await keeper.run()).toEqual({ made: ["clicks_2040_01", "clicks_2040_02", "clicks_2040_03"], dropped: [], visitorDaysDropped: [], auditEntriesDeleted: 0 });
    expect(await names()).toContain("clicks_2034_04");
    await keeper.close();
  });

  it("the hourly run also deletes the visitor salts and visitors of the days over, past their grace (CONTRACT §21)", async () => {
    for (const day of ["2041-06-01", "2041-06-02"]) {
      await findOrCreateVisitorSalt(database.db, day, new Date("2041-06-01T00:00:00Z"));
      await database.db.execute(sql`insert into link_visitors (link_id, day, visitor) values (1, ${day}::date, 1)`);
      await database.db.execute(sql`insert into link_visitor_sets (link_id, day, bucket, visitors, added) values (1, ${day}::date, 0, '{2}', 1)`);
    }
    const at = (iso: string) => createClickPartitionKeeper({ database, now: () => new Date(iso), log: quiet, retentionDays: undefined });
    // June 2nd, 00:05: June 1st is over but within its grace (batches of the day may still be written).
    expect((await at("2041-06-02T00:05:00Z").run()).visitorDaysDropped).toEqual([]);
    expect((await at("2041-06-02T00:10:00Z").run()).visitorDaysDropped).toEqual(["2041-06-01"]);
    const days = await queryRows<{ day: string }>(
      database.db,
      sql`select day::text as day from link_visitors where day >= '2041-06-01'
          union all select day::text from link_visitor_sets where day >= '2041-06-01'
          union all select day::text from visitor_salts where day >= '2041-06-01'`,
    );
    expect(days.map((d) => d.day)).toEqual(["2041-06-02", "2041-06-02", "2041-06-02"]);
  });
});

describe("the same upkeep ends audit entries past AUDIT_RETENTION_DAYS (CONTRACT §24)", () => {
  it("deletes only the entries older than the retention; without it, none", async () => {
    const now = new Date("2045-03-01T00:00:00Z");
    const ages = [400, 91, 89, 1];
    for (const days of ages) {
      await database.db.execute(
        sql`insert into audit_log (workspace_id, action, object_type, object_id, changes, created_at) values (999, 'space.created', 'space', ${String(days)}, '{}', ${new Date(now.getTime() - days * 86_400_000).toISOString()}::timestamptz)`,
      );
    }
    const left = async () => (await queryRows<{ id: string }>(database.db, sql`select object_id as id from audit_log where workspace_id = 999 order by created_at`)).map((r) => r.id);
    const keep = createClickPartitionKeeper({ database, now: () => now, log: quiet, retentionDays: undefined });
    expect((await keep.run()).auditEntriesDeleted).toBe(0);
    expect(await left()).toEqual(["400", "91", "89", "1"]);
    const keeper = createClickPartitionKeeper({ database, now: () => now, log: quiet, retentionDays: undefined, auditRetentionDays: 90 });
    expect((await keeper.run()).auditEntriesDeleted).toBe(2);
    expect(await left()).toEqual(["89", "1"]);
    await keep.close();
    await keeper.close();
  });
});
