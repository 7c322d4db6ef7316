import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows, type Database } from "../src/index.ts";
import { openTestDb, openTestDbBehindProxy } from "../src/testing.ts";

// A pool of two open connections, each busy with a slow query when transactions start: postgres.js's
// own `begin` would queue BEGIN behind a busy connection's query, fail with UNSAFE_TRANSACTION after
// BEGIN had run, and leave that connection in the pool inside an open transaction (client.ts).
let database: Database;
beforeAll(async () => {
  database = await openTestDb({ poolSize: 2 });
  await database.db.execute(sql`create table tx_probe (id serial primary key, tag text not null)`);
});
afterAll(async () => {
  await database?.close();
});

/** Sessions of this test's database that sit inside a transaction, other than the asking one. */
async function openTransactions(): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    database.db,
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`,
  );
  return row?.n ?? -1;
}

/**
 * Opens both connections of the pool, then keeps each busy with one slow query, sent at once (postgres.js
 * `execute()`; drizzle's queries would start only when awaited).
 */
async function busyPool(seconds: number): Promise<Promise<unknown>[]> {
  const client = database.postgres;
  if (!client) throw new Error("a Postgres test");
  await Promise.all([client`select 1`, client`select 1`]);
  return [client`select pg_sleep(${seconds})`.execute(), client`select pg_sleep(${seconds})`.execute()];
}

async function tags(): Promise<string[]> {
  const rows = await queryRows<{ tag: string }>(database.db, sql`select tag from tx_probe order by tag`);
  return rows.map((r) => r.tag);
}

describe("transactions on a busy Postgres pool", () => {
  it("each transaction gets a connection of its own: all commit, none fails, none is left open", async () => {
    const busy = await busyPool(0.05);
    const transactions = Array.from({ length: 8 }, (_, i) =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into tx_probe (tag) values (${`t${i}`})`);
        await tx.execute(sql`select pg_sleep(0.01)`);
        await tx.execute(sql`insert into tx_probe (tag) values (${`t${i}b`})`);
      }),
    );
    const more = Array.from({ length: 6 }, () => database.db.execute(sql`select pg_sleep(0.02)`));
    const results = await Promise.allSettled([...busy, ...transactions, ...more]);
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect(await tags()).toEqual(
      Array.from({ length: 8 }, (_, i) => [`t${i}`, `t${i}b`])
        .flat()
        .sort(),
    );
    expect(await openTransactions()).toBe(0);
  });

  it("a transaction that throws rolls back all of its writes, and a nested one rolls back alone", async () => {
    await database.db.execute(sql`delete from tx_probe`);
    const busy = await busyPool(0.03);
    const failing = database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into tx_probe (tag) values ('lost')`);
      throw new Error("no");
    });
    const nested = database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into tx_probe (tag) values ('outer')`);
      await tx
        .transaction(async (inner) => {
          await inner.execute(sql`insert into tx_probe (tag) values ('inner')`);
          throw new Error("inner fails");
        })
        .catch(() => {});
      await tx.transaction(async (inner) => {
        await inner.execute(sql`insert into tx_probe (tag) values ('inner kept')`);
      });
    });
    const [failed, ...rest] = await Promise.allSettled([failing, nested, ...busy]);
    expect(failed?.status).toBe("rejected");
    expect(rest.every((r) => r.status === "fulfilled")).toBe(true);
    expect(await tags()).toEqual(["inner kept", "outer"]);
    expect(await openTransactions()).toBe(0);
  });
});

describe("transactions across a database outage", () => {
  it("a transaction whose connection was cut fails, and transactions after the outage run (none waits for ever)", async () => {
    const outage = await openTestDbBehindProxy(2);
    const transaction = (tag: string) =>
      outage.viaProxy.db.transaction(async (tx) => {
        await tx.execute(sql`select ${tag}::text`);
      });
    // Settles in time or reports that it did not: a hang is the failure this test is about.
    const settled = (work: Promise<unknown>) =>
      Promise.race([
        work.then(
          () => "committed",
          () => "failed",
        ),
        new Promise((resolve) => setTimeout(() => resolve("still waiting after 10 s"), 10_000)),
      ]);
    try {
      expect(await settled(transaction("before"))).toBe("committed");
      await outage.proxy.stop();
      // The first reserves the pool's open connection, whose socket is cut; the next ones must connect.
      expect([await settled(transaction("during 1")), await settled(transaction("during 2")), await settled(transaction("during 3"))]).toEqual(["failed", "failed", "failed"]);
      await outage.proxy.start();
      const after = [];
      for (let i = 0; i < 4; i++) after.push(await settled(transaction(`after ${i}`)));
      expect(after).toEqual(["committed", "committed", "committed", "committed"]);
    } finally {
      await outage.close();
    }
  }, 60_000);

  it("transactions asked for while the pool reconnects are answered when the database comes back", async () => {
    const outage = await openTestDbBehindProxy(4);
    const within = (work: Promise<unknown>) =>
      Promise.race([
        work.then(
          () => "committed",
          () => "failed",
        ),
        new Promise((resolve) => setTimeout(() => resolve("still waiting after 15 s"), 15_000)),
      ]);
    try {
      const outcomes: unknown[] = [];
      // Each round: the database goes away, queries send every connection of the pool reconnecting,
      // transactions queue behind them, and the database comes back a little later each round.
      for (let round = 0; round < 8; round++) {
        await outage.proxy.stop();
        const queries = Array.from({ length: 6 }, () => within(outage.viaProxy.db.execute(sql`select 1`)));
        const transactions = Array.from({ length: 3 }, () =>
          within(
            outage.viaProxy.db.transaction(async (tx) => {
              await tx.execute(sql`select 1`);
            }),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 30 * round));
        await outage.proxy.start();
        outcomes.push(...(await Promise.all(transactions)));
        await Promise.all(queries);
      }
      expect(outcomes.filter((o) => o !== "committed" && o !== "failed")).toEqual([]);
      expect(await within(outage.viaProxy.db.transaction(async (tx) => tx.execute(sql`select 1`)))).toBe("committed");
    } finally {
      await outage.close();
    }
  }, 120_000);
});
