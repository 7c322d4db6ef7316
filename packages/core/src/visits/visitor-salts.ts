import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import { queryRows, sql, type Db } from "@shortener/db";

/*
 * Unique visitors (CONTRACT §21, docs/adr/0041-unique-visitors-and-orphan-visits.md). A visitor is a
 * 64-bit keyed hash of (client group, User-Agent, link) under the secret salt of the visit's UTC day. The
 * salt is 32 random bytes in `visitor_salts`, made by whichever process needs it first and read back by
 * every other, so all of them hash alike. Once its day is over (and a grace for batches still in flight)
 * the salt and that day's `link_visitors` are deleted: no hash can be computed again, nor tied to anyone.
 */

/** How long after its day a salt and its visitors are kept: click batches of the day still being written. */
export const VISITOR_DAY_GRACE_MS = 10 * 60_000;

const DAY_MS = 86_400_000;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/**
 * The salt of `day` as a key: made now if no process made it yet (`on conflict do nothing`, then read:
 * every process gets the same). The process that makes a day's salt also deletes the days past their
 * grace (`dropPastVisitorDays`), so a deployment without the worker role cleans up too.
 */
export async function findOrCreateVisitorSalt(db: Db, day: string, now: Date): Promise<KeyObject> {
  const made = await db.transaction(async (tx) => {
    // The salt must outlive a crash once another process may have used it: a durable commit, whatever
    // the connection's setting (the visitor side's click pool commits asynchronously).
    await tx.execute(sql`set local synchronous_commit to on`);
    return queryRows<{ salt: string }>(tx, sql`insert into visitor_salts (day, salt) values (${day}::date, ${randomBytes(32).toString("hex")}) on conflict (day) do nothing returning salt`);
  });
  let salt = made[0]?.salt;
  if (salt !== undefined) await dropPastVisitorDays(db, now);
  else [{ salt } = { salt: undefined }] = await queryRows<{ salt: string }>(db, sql`select salt from visitor_salts where day = ${day}::date`);
  if (!salt || !/^[0-9a-f]{64}$/.test(salt)) throw new Error(`visitor salt of ${day} is missing or malformed`);
  return createSecretKey(Buffer.from(salt, "hex"));
}

/**
 * Deletes the salts and the visitors of every day over for longer than the grace: at `now`, the days
 * before the UTC day of `now - grace`. Returns the days whose salt it deleted.
 */
export async function dropPastVisitorDays(db: Db, now: Date, graceMs = VISITOR_DAY_GRACE_MS): Promise<string[]> {
  const before = utcDay(now.getTime() - graceMs);
  return db.transaction(async (tx) => {
    await tx.execute(sql`delete from link_visitors where day < ${before}::date`);
    const rows = await queryRows<{ day: string }>(tx, sql`delete from visitor_salts where day < ${before}::date returning day::text as day`);
    return rows.map((r) => r.day).sort();
  });
}

/**
 * The visitor of a visit: the first 8 bytes of HMAC-SHA256 under the day's salt of the client's group
 * (an IPv4 address or an IPv6 /64, CONTRACT §15), the User-Agent and the link, as 16 hex digits. The
 * three parts are joined by NUL, which none of them can hold.
 */
export function visitorHash(salt: KeyObject, group: string, userAgent: string, linkId: number): string {
  return createHmac("sha256", salt).update(`${linkId}\u0000${group}\u0000${userAgent}`).digest("hex").slice(0, 16);
}

/** The first instant (ms) of the UTC day after the one holding `at`. */
export function nextUtcDayStart(at: number): number {
  return (Math.floor(at / DAY_MS) + 1) * DAY_MS;
}
