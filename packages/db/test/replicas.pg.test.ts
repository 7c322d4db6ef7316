import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, openReadRouter, queryRows, sql, type Database, type Db, type ReadRouter } from "../src/index.ts";
import { startReplicatedPostgres, type ReplicatedPostgres } from "../src/testing.ts";

/**
 * The read router on its own (CONTRACT §26, docs/adr/0055-read-replicas-and-a-pooler.md), on a primary
 * and a streaming replica this file starts (`startReplicatedPostgres`): what runs where, and what happens
 * to a caller who writes and to a replica that stops. launcher/test/replicas.pg.test.ts tests the service.
 */
const DB = "routing";
let pg: ReplicatedPostgres | undefined;
let primary: Database | undefined;
let router: ReadRouter | undefined;

/** Whether the statement ran on the replica (a server in recovery). */
async function ranOnReplica(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ is_replica: boolean }>(db, sql`select pg_is_in_recovery() as is_replica`);
  return row?.is_replica === true;
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await check());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the read router on a primary and a streaming replica", () => {
  beforeAll(async () => {
    pg = await startReplicatedPostgres({ withBouncer: false });
    await pg.createDatabase(DB);
    primary = await openDb({ url: pg.url("primary", DB), poolSize: 4 });
    await primary.db.execute(sql`create table notes (id int primary key, body text not null)`);
    router = openReadRouter({ primary, urls: [pg.url("replica", DB)], maxLagMs: 1_000, poolSize: 2 });
    await router.start();
  }, 120_000);

  afterAll(async () => {
    await router?.close();
    await primary?.close();
    await pg?.stop();
  });

  it("a read goes to a replica that holds what it must see; its writes and transactions run on the primary", async () => {
    const r = router as ReadRouter;
    await (primary as Database).db.execute(sql`insert into notes values (1, 'first')`);
    const wroteAt = Date.now();
    await until("the replica to hold the insert", () => r.isReplica(r.reader(wroteAt)));
    const reader = r.reader(wroteAt);
    expect(await ranOnReplica(reader)).toBe(true);
    expect(await queryRows(reader, sql`select body from notes where id = 1`)).toEqual([{ body: "first" }]);
    // A write sent through a read handle: the replica refuses it (read-only), the primary runs it.
    await reader.execute(sql`insert into notes values (2, 'through a reader')`);
    expect(await queryRows((primary as Database).db, sql`select body from notes where id = 2`)).toEqual([{ body: "through a reader" }]);
    // A transaction on a read handle is the primary's, statements and all.
    expect(await reader.transaction(async (tx) => ranOnReplica(tx as unknown as Db))).toBe(false);
    const reads = r.stats().reads;
    expect(reads.replica1).toBeGreaterThanOrEqual(2);
    expect(reads.primary).toBeGreaterThanOrEqual(1);
  });

  it("a caller who wrote reads from the primary until a replica has replayed the write; other callers do not wait", async () => {
    const r = router as ReadRouter;
    // Right after the start every caller reads from the primary (announcements may have been missed).
    await until("callers to read from the replica", () => r.isReplica(r.readerFor(8)));
    await (primary as Database).db.execute(sql`update notes set body = 'edited' where id = 1`);
    await r.wrote(7);
    expect(r.isReplica(r.readerFor(7))).toBe(false);
    expect(r.isReplica(r.readerFor(8))).toBe(true);
    await until("the writer's reads to move to the replica", () => r.isReplica(r.readerFor(7)));
    expect(await queryRows(r.readerFor(7), sql`select body from notes where id = 1`)).toEqual([{ body: "edited" }]);
  });

  it("a replica that stops: its statements run on the primary at once, and it is skipped as down until it is back", { timeout: 60_000 }, async () => {
    const r = router as ReadRouter;
    await until("a replica to read from", () => r.isReplica(r.reader()));
    const reader = r.reader();
    await (pg as ReplicatedPostgres).stopReplica();
    try {
      expect(await ranOnReplica(reader)).toBe(false);
      await until("the replica to be seen down", () => r.stats().replicas[0]?.isUp === false);
      expect(r.isReplica(r.reader())).toBe(false);
      expect(r.stats().skipped).toContainEqual(expect.objectContaining({ replica: "replica1", reason: "down" }));
    } finally {
      await (pg as ReplicatedPostgres).startReplica();
    }
    await until("the replica to be back", () => r.isReplica(r.reader()));
    expect(await ranOnReplica(r.reader())).toBe(true);
  });
});
