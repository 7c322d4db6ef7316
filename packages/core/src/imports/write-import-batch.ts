import { sql } from "drizzle-orm";
import { pgArray, queryRows, type Db } from "@shortener/db";
import { randomAlias } from "../links/alias.ts";
import { classifyAliasConflict } from "../links/alias-conflict.ts";
import { LINK_INSERT_COLUMNS, linkColumnName, type LinkInsertColumn, type TAG_INSERT_COLUMNS } from "../links/link-columns.ts";
import { tagColumns } from "../links/respell-tags.ts";
import { hashPassword } from "../secrets/hash.ts";
import type { CheckedRow } from "./check-import-row.ts";
import type { RowError } from "./import-job.ts";

/** A checked row with its secrets hashed: what is written (the clear passwords are not). */
export type WritableRow = CheckedRow;

/** What one batch adds to its job's counters; committed together with its links. */
export type BatchOutcome = { processed: number; created: number; skipped: number; failed: number; errors: RowError[]; lastLine: number };

/** scrypt takes ~50 ms of a libuv thread: hash only rows that have a password, a few at a time. */
const HASH_CONCURRENCY = 4;

/** The key that makes a row's link unique across resumes: a resumed job never writes a row twice. */
export function importKeyOf(jobId: number, line: number): string {
  return `${jobId}:${line}`;
}

/** Hashes the passwords of checked rows in place (only rows that have one), with bounded concurrency. */
export async function hashRowSecrets(rows: CheckedRow[]): Promise<WritableRow[]> {
  const tasks: Array<() => Promise<void>> = [];
  for (const row of rows) {
    const { password, privacyPassword } = row;
    if (password !== null) tasks.push(async () => void (row.passwordHash = await hashPassword(password)));
    if (privacyPassword !== null) tasks.push(async () => void (row.privacyPasswordHash = await hashPassword(privacyPassword)));
  }
  let next = 0;
  const lanes = Array.from({ length: Math.min(HASH_CONCURRENCY, tasks.length) }, async () => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
  });
  await Promise.all(lanes);
  return rows;
}

type Pending = { row: WritableRow; alias: string; attempt: number };

/**
 * Writes one batch of a job in ONE transaction (docs/adr/0010-bulk-writes.md): the links (one
 * `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING` that answers with the rows it did not insert), their
 * pixels, the batch's row errors, and the job's counters with its checkpoint. A row that was not
 * inserted is classified: its own import key already there → skipped (written before); its alias
 * taken by an earlier row of this file → error; taken with the same url → skipped; with another url →
 * error; a random alias that collided → retried with a new one.
 */
export async function writeImportBatch(
  db: Db,
  batch: {
    jobId: number;
    workspaceId: number;
    now: Date;
    rows: readonly WritableRow[];
    rejected: readonly RowError[];
    rejectedRows: number;
    lastLine: number;
    /** A live migration's pages: the cursors read for this batch and where the next page starts, committed with its rows. */
    source?: SourceCheckpoint;
  },
): Promise<BatchOutcome> {
  const { jobId, workspaceId, now } = batch;
  const errors: RowError[] = [...batch.rejected];
  let created = 0;
  let skipped = 0;
  let failedWrites = 0;
  const fail = (line: number, field: string, message: string, alias: string | null) => {
    errors.push({ line, field, message, alias });
    failedWrites++;
  };

  await db.transaction(async (tx0) => {
    const tx = tx0 as unknown as Db;
    let pending: Pending[] = batch.rows.map((row) => ({ row, alias: row.alias ?? randomAlias(0), attempt: 0 }));
    const withPixels: Array<{ id: number; pixelIds: number[] }> = [];
    const withDays: Array<{ id: number; days: Array<[string, number]> }> = [];
    const withTags: Array<{ id: number; tags: string[] }> = [];
    while (pending.length) {
      const outcome = await insertLinks(tx, jobId, workspaceId, now, pending);
      const missed: Pending[] = [];
      for (const p of pending) {
        if (outcome.missedLines.has(p.row.line)) {
          missed.push(p);
          continue;
        }
        created++;
        if (!wantsId(p)) continue;
        const id = outcome.idsByLine.get(p.row.line);
        if (id === undefined) throw new Error(`import line ${p.row.line}: inserted without its id`);
        if (p.row.pixelIds.length) withPixels.push({ id, pixelIds: p.row.pixelIds });
        if (p.row.importedClicksByDay.length) withDays.push({ id, days: p.row.importedClicksByDay });
        if (p.row.tags.length) withTags.push({ id, tags: p.row.tags });
      }
      if (!missed.length) break;
      const existing = await findExisting(tx, jobId, missed);
      const retry: Pending[] = [];
      for (const p of missed) {
        const key = importKeyOf(jobId, p.row.line);
        if (existing.keys.has(key)) {
          skipped++;
          continue;
        }
        const found = p.row.alias === null ? undefined : existing.byAlias.get(`${p.row.domainId}/${p.alias}`);
        const holder = found === undefined ? null : found.importKey?.startsWith(`${jobId}:`) ? { line: Number(found.importKey.slice(String(jobId).length + 1)) } : { url: found.url };
        const conflict = classifyAliasConflict({ isChosen: p.row.alias !== null, attempt: p.attempt, url: p.row.url, holder });
        if (conflict.kind === "skip") skipped++;
        else if (conflict.kind === "error") fail(p.row.line, "alias", conflict.message, p.row.alias);
        // A random alias that collided gets a new one; a chosen one whose holder went away is tried as it is.
        else retry.push({ row: p.row, alias: p.row.alias ?? randomAlias(p.attempt + 1), attempt: p.attempt + 1 });
      }
      pending = retry;
    }

    // Tags as the file writes them (not respelled as the API's creates are), set on the rows just inserted.
    if (withTags.length) {
      await tx.execute(sql`
        update links set tags = array(select jsonb_array_elements_text(v.tags)), tag_keys = array(select jsonb_array_elements_text(v.tag_keys))
        from unnest(${pgArray(withTags.map((l) => l.id))}::int[], ${pgArray(withTags.map((l) => JSON.stringify(l.tags)))}::jsonb[], ${pgArray(withTags.map((l) => JSON.stringify(tagColumns(l.tags).tagKeys)))}::jsonb[]) as v(id, tags, tag_keys)
        where links.id = v.id`);
    }
    if (withPixels.length) {
      const linkIds = withPixels.flatMap((l) => l.pixelIds.map(() => l.id));
      const pixelIds = withPixels.flatMap((l) => l.pixelIds);
      await tx.execute(sql`
        insert into link_pixels (link_id, pixel_id)
        select * from unnest(${pgArray(linkIds)}::int[], ${pgArray(pixelIds)}::int[])
        on conflict do nothing`);
    }
    if (withDays.length) await writeImportedRollups(tx, workspaceId, withDays);
    errors.sort((a, b) => a.line - b.line);
    if (errors.length) {
      await tx.execute(sql`
        insert into import_errors (job_id, line, field, message, alias)
        select ${jobId}::int, * from unnest(${pgArray(errors.map((e) => e.line))}::int[], ${pgArray(errors.map((e) => e.field))}::text[], ${pgArray(errors.map((e) => e.message))}::text[], ${pgArray(errors.map((e) => e.alias ?? null))}::text[])`);
    }
    const processed = batch.rows.length + batch.rejectedRows;
    const updated = await queryRows<{ id: number }>(
      tx,
      sql`update import_jobs set
            processed_rows = processed_rows + ${processed}::int,
            created_rows = created_rows + ${created}::int,
            skipped_rows = skipped_rows + ${skipped}::int,
            failed_rows = failed_rows + ${batch.rejectedRows + failedWrites}::int,
            checkpoint_line = ${batch.lastLine}::int
            ${batch.source ? sql`, source_cursor = ${batch.source.next}::text, source_cursors_seen = source_cursors_seen || ${pgArray(batch.source.read)}::text[]` : sql``}
          where id = ${jobId}::int returning id`,
    );
    if (!updated.length) throw new ImportGoneError(jobId);
  });

  return { processed: batch.rows.length + batch.rejectedRows, created, skipped, failed: batch.rejectedRows + failedWrites, errors, lastLine: batch.lastLine };
}

/** The job row disappeared (its user was deleted): nothing more to do. */
export class ImportGoneError extends Error {
  constructor(readonly jobId: number) {
    super(`import job ${jobId} no longer exists`);
    this.name = "ImportGoneError";
  }
}

/** A live migration's place in its source, written with the batch (`import_jobs.source_cursor`). */
export type SourceCheckpoint = { read: string[]; next: string | null };

/** Whether the insert must answer with a row's new id: it has pixels to attach, clicks by day to roll up, or tags to set. */
const wantsId = (p: Pending) => p.row.pixelIds.length > 0 || p.row.importedClicksByDay.length > 0 || p.row.tags.length > 0;

/** The columns an import binds per row: `LINK_INSERT_COLUMNS` but those one batch shares and the tags (set after the insert), and the carried click counts. */
type PerRowColumn = Exclude<LinkInsertColumn, (typeof TAG_INSERT_COLUMNS)[number] | "workspaceId" | "updatedAt"> | "clicks" | "importedClicks";
const IMPORT_ONLY_COLUMNS = { clicks: "bigint", importedClicks: "bigint" } as const;

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** Each per-row column's value, as its array element (booleans as `t`/`f`, times as ISO text, targeting as JSON text). */
function importValues(jobId: number, at: string): Record<PerRowColumn, (p: Pending) => string | number | null> {
  return {
    createdAt: (p) => p.row.createdAt?.toISOString() ?? at,
    targetType: (p) => p.row.targetType,
    countryTarget: (p) => jsonOrNull(p.row.countryTarget),
    platformTarget: (p) => jsonOrNull(p.row.platformTarget),
    languageTarget: (p) => jsonOrNull(p.row.languageTarget),
    rotationTarget: (p) => jsonOrNull(p.row.rotationTarget),
    clicks: (p) => p.row.importedClicks,
    importedClicks: (p) => p.row.importedClicks,
    domainId: (p) => p.row.domainId,
    spaceId: (p) => p.row.spaceId,
    alias: (p) => p.alias,
    url: (p) => p.row.url,
    title: (p) => p.row.title,
    passwordHash: (p) => p.row.passwordHash,
    disabled: (p) => (p.row.disabled ? "t" : "f"),
    privacy: (p) => p.row.privacy,
    privacyPasswordHash: (p) => p.row.privacyPasswordHash,
    expirationUrl: (p) => p.row.expirationUrl,
    expirationClicks: (p) => p.row.expirationClicks,
    endsAt: (p) => p.row.endsAt?.toISOString() ?? null,
    ogTitle: (p) => p.row.ogTitle,
    ogDescription: (p) => p.row.ogDescription,
    ogImage: (p) => p.row.ogImage,
    importKey: (p) => importKeyOf(jobId, p.row.line),
  };
}

/**
 * Inserts the rows. Returns the lines that were NOT inserted (a conflict on some unique index) and the
 * new ids of the rows that have pixels — not a row per link: reading back 5,000 ids and keys a batch
 * cost the importer's thread more than anything but the row checks (docs/adr/0029-import-write-path.md).
 * New links are not announced, like the API's creates: the visitor side caches "no such link" for
 * under a second (ADR 0012).
 */
async function insertLinks(db: Db, jobId: number, workspaceId: number, now: Date, pending: readonly Pending[]): Promise<{ missedLines: Set<number>; idsByLine: Map<number, number> }> {
  const at = now.toISOString();
  const perRow = Object.entries(importValues(jobId, at)) as Array<[PerRowColumn, (p: Pending) => string | number | null]>;
  const types: Record<PerRowColumn, string> = { ...LINK_INSERT_COLUMNS, ...IMPORT_ONLY_COLUMNS };
  const arrays = sql.join(
    perRow.map(([column, value]) => sql`${pgArray(pending.map(value))}::${sql.raw(types[column])}[]`),
    sql`, `,
  );
  const names = sql.raw(perRow.map(([column]) => linkColumnName(column as LinkInsertColumn)).join(", "));
  const fromV = sql.raw(perRow.map(([column]) => `v.${linkColumnName(column as LinkInsertColumn)}`).join(", "));
  const rows = await queryRows<{ id: number | null; import_key: string }>(
    db,
    sql`with v as (
          select * from unnest(${arrays}, ${pgArray(pending.map((p) => (wantsId(p) ? "t" : "f")))}::boolean[]) as v(${names}, wants_id)
        ), ins as (
          insert into links (workspace_id, ${names}, updated_at)
          select ${workspaceId}::int, ${fromV}, ${at}::timestamptz
          from v
          on conflict do nothing
          returning id, import_key
        )
        select null::int as id, v.import_key from v where not exists (select from ins where ins.import_key = v.import_key)
        union all
        select ins.id, ins.import_key from ins join v using (import_key) where v.wants_id`,
  );
  const prefix = String(jobId).length + 1;
  const missedLines = new Set<number>();
  const idsByLine = new Map<number, number>();
  for (const r of rows) {
    const line = Number(r.import_key.slice(prefix));
    if (r.id === null) missedLines.add(line);
    else idsByLine.set(line, Number(r.id));
  }
  return { missedLines, idsByLine };
}

/** For rows that were not inserted: the links holding their (domain, alias), and which of their import keys exist. */
async function findExisting(db: Db, jobId: number, missed: readonly Pending[]) {
  const rows = await queryRows<{ domain_id: number; alias: string; url: string; import_key: string | null }>(
    db,
    sql`select l.domain_id, l.alias, l.url, l.import_key from links l
        where (l.domain_id, l.alias) in (select * from unnest(${pgArray(missed.map((p) => p.row.domainId))}::int[], ${pgArray(missed.map((p) => p.alias))}::text[]))
           or l.import_key = any(${pgArray(missed.map((p) => importKeyOf(jobId, p.row.line)))}::text[])`,
  );
  const byAlias = new Map<string, { url: string; importKey: string | null }>();
  const keys = new Set<string>();
  for (const r of rows) {
    byAlias.set(`${r.domain_id}/${r.alias}`, { url: r.url, importKey: r.import_key });
    if (r.import_key) keys.add(r.import_key);
  }
  return { byAlias, keys };
}

/**
 * The clicks a source reported per day, into the rollups of the new links (CONTRACT §23): each day's
 * count goes into `clicks` (so statistics add them up with this service's own) and into `imported` (so
 * they say how many came from elsewhere), for the link and for its workspace, whose top links
 * (`account_link_daily`) count them too. Never into `unique`, `bots` or any trait: the source did not say.
 */
async function writeImportedRollups(db: Db, workspaceId: number, links: ReadonlyArray<{ id: number; days: ReadonlyArray<[string, number]> }>): Promise<void> {
  const ids = links.flatMap((l) => l.days.map(() => l.id));
  const days = links.flatMap((l) => l.days.map(([day]) => day));
  const counts = links.flatMap((l) => l.days.map(([, n]) => n));
  const rows = sql`unnest(${pgArray(ids)}::int[], ${pgArray(days)}::date[], ${pgArray(counts)}::bigint[]) as r(link_id, day, n)`;
  await db.execute(sql`
    insert into link_stats_daily (link_id, dimension, day, value, count)
    select r.link_id, d.dimension, r.day, '', r.n from ${rows}, (values ('clicks'), ('imported')) as d(dimension)
    on conflict (link_id, dimension, day, value) do update set count = link_stats_daily.count + excluded.count`);
  await db.execute(sql`
    with accounts as (
      insert into account_stats_daily (workspace_id, dimension, day, value, count)
      select ${workspaceId}::int, d.dimension, r.day, '', sum(r.n) from ${rows}, (values ('clicks'), ('imported')) as d(dimension) group by d.dimension, r.day
      on conflict (workspace_id, dimension, day, value) do update set count = account_stats_daily.count + excluded.count
    )
    insert into account_link_daily (workspace_id, day, link_id, count)
    select ${workspaceId}::int, r.day, r.link_id, r.n from ${rows}
    on conflict (workspace_id, day, link_id) do update set count = account_link_daily.count + excluded.count`);
}
