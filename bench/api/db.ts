import { randomBytes } from "node:crypto";
import postgres from "postgres";

/** Creates an empty database next to `adminUrl`'s; returns its name and URL. */
export async function createBenchDb(adminUrl: string): Promise<{ name: string; url: string }> {
  const name = `shortener_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** Drops the bench database, closing any connection still on it. */
export async function dropBenchDb(adminUrl: string, name: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}

/**
 * The column that says who owns a row: `workspace_id` since migration 0022 (CONTRACT §24), `user_id`
 * before. A side-by-side run seeds an older checkout's database too, so the seed asks the schema.
 */
export async function ownerColumn(sql: postgres.Sql): Promise<"workspace_id" | "user_id"> {
  const [row] = await sql<{ name: string }[]>`
    select column_name as name from information_schema.columns where table_name = 'links' and column_name in ('workspace_id', 'user_id')`;
  return row?.name === "user_id" ? "user_id" : "workspace_id";
}

/** The bootstrapped admin's local domain and its owner (the admin's workspace, or the admin on an older schema), looked up rather than assumed to be id 1. */
export async function findAdminAndDomain(sql: postgres.Sql, domainName: string): Promise<{ ownerId: number; domainId: number }> {
  const owner = sql(await ownerColumn(sql));
  const [row] = await sql<{ owner_id: number; domain_id: number }[]>`
    select d.${owner} as owner_id, d.id as domain_id from domains d where d.name = ${domainName}`;
  if (!row) throw new Error(`no domain ${domainName}: did the bootstrap run?`);
  return { ownerId: row.owner_id, domainId: row.domain_id };
}

/**
 * Inserts `count` links (ids 1..count on an empty table) for one user on one domain, in one
 * transaction. The secondary indexes are dropped first and rebuilt from their own definitions
 * afterwards, which is about twice as fast as maintaining them row by row (three are trigram GINs).
 * Then VACUUM ANALYZE: the planner statistics and visibility map a table has in steady state, and no
 * autovacuum of the fresh rows starting in the middle of a measurement.
 */
export async function seedLinks(sql: postgres.Sql, ownerId: number, domainId: number, count: number): Promise<void> {
  const owner = sql(await ownerColumn(sql));
  await sql.begin(async (tx) => {
    const indexes = await tx<{ name: string; definition: string }[]>`
      select indexname as name, indexdef as definition from pg_indexes
      where schemaname = 'public' and tablename = 'links' and indexname <> 'links_pkey'`;
    for (const index of indexes) await tx.unsafe(`drop index "${index.name}"`);
    await tx`
      insert into links (${owner}, domain_id, alias, url, title, created_at, updated_at)
      select ${ownerId}, ${domainId}, 'a' || g, 'https://example-' || (g % 5000) || '.test/path/' || g, 'Title ' || g, now(), now()
      from generate_series(1, ${count}::int) g`;
    await tx`set local maintenance_work_mem = '256MB'`;
    for (const index of indexes) await tx.unsafe(index.definition);
  });
  await sql`vacuum (analyze) links`;
}
