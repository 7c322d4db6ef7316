import { randomBytes } from "node:crypto";
import { queryRows, sql, type Db } from "@shortener/db";
import { sipHash24, sipKey, type SipKey } from "./siphash.ts";

/*
 * Unique visitors (CONTRACT §21, docs/adr/0041-unique-visitors-and-orphan-visits.md). A visitor is a
 * 64-bit keyed hash of (client group, User-Agent, link) under the secret salt of the visit's UTC day. The
 * salt is 32 random bytes in `visitor_salts`, made by whichever process needs it first and read back by
 * every other, so all of them hash alike. Once its day is over (and a grace for batches still in flight)
 * the salt and that day's visitors (`link_visitor_sets`, `link_visitors`) are deleted: no hash can be computed
 * again, nor tied to anyone.
 */

/** How long after its day a salt and its visitors are kept: click batches of the day still being written. */
export const VISITOR_DAY_GRACE_MS = 10 * 60_000;

const DAY_MS = 86_400_000;

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** A day's salt: 64 hex digits (32 random bytes). */
export type VisitorSalt = string & { readonly __visitorSalt: true };

/**
 * The salt of `day`: made now if no process made it yet (`on conflict do nothing`, then read:
 * every process gets the same). The process that makes a day's salt also deletes the days past their
 * grace (`dropPastVisitorDays`), so a deployment without the worker role cleans up too.
 */
export async function findOrCreateVisitorSalt(db: Db, day: string, now: Date): Promise<VisitorSalt> {
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
  return salt as VisitorSalt;
}

/**
 * Deletes the salts and the visitors of every day over for longer than the grace: at `now`, the days
 * before the UTC day of `now - grace`. Returns the days whose salt it deleted.
 */
export async function dropPastVisitorDays(db: Db, now: Date, graceMs = VISITOR_DAY_GRACE_MS): Promise<string[]> {
  const before = utcDay(now.getTime() - graceMs);
  return db.transaction(async (tx) => {
    await tx.execute(sql`delete from link_visitor_sets where day < ${before}::date`);
    await tx.execute(sql`delete from link_visitors where day < ${before}::date`);
    const rows = await queryRows<{ day: string }>(tx, sql`delete from visitor_salts where day < ${before}::date returning day::text as day`);
    return rows.map((r) => r.day).sort();
  });
}

/** A day's salt made ready for hashing: its first 16 bytes as a SipHash key. */
export type VisitorKey = { readonly salt: VisitorSalt; readonly key: SipKey };

export function visitorKey(salt: VisitorSalt): VisitorKey {
  return { salt, key: sipKey(Buffer.from(salt.slice(0, 32), "hex")) };
}

/** A User-Agent reduced to 64 bits (two 32-bit halves, low first), once per distinct string: see `agentDigest`. */
export type AgentDigest = readonly [number, number];

/** The public, fixed key the User-Agent is reduced under: the secret is the day's salt, applied after. */
const AGENT_KEY = sipKey(new TextEncoder().encode("shortener/agents"));
const encoder = new TextEncoder();
/** The message of one hash, reused: a User-Agent counts up to 512 characters, 3 bytes each at most. */
const message = new Uint8Array(2048);
const out = new Uint32Array(2);

/**
 * The User-Agent as the visitor hash takes it: SipHash-2-4 of its first 512 characters' UTF-8 under a
 * fixed key (the same in every process). Not a secret: it only makes a long string short, and is computed
 * once per distinct User-Agent (the visitor side keeps it beside the parsed agent).
 */
export function agentDigest(userAgent: string): AgentDigest {
  const { written } = encoder.encodeInto(userAgent.length > 512 ? userAgent.slice(0, 512) : userAgent, message);
  sipHash24(AGENT_KEY, message, written, out);
  return [out[0] as number, out[1] as number];
}

/** The character code of each hex digit. */
const HEX_CODE = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0));
const digit = (n: number, shift: number): number => HEX_CODE[(n >>> shift) & 15] as number;

/**
 * 64 bits as 16 hex digits, high half first, made in one piece: joining pieces would leave a rope that
 * the click buffer's `Set` must flatten and copy before it can hash it (~0.2 µs a visit, issue 26).
 */
function hex16(high: number, low: number): string {
  return String.fromCharCode(
    digit(high, 28),
    digit(high, 24),
    digit(high, 20),
    digit(high, 16),
    digit(high, 12),
    digit(high, 8),
    digit(high, 4),
    digit(high, 0),
    digit(low, 28),
    digit(low, 24),
    digit(low, 20),
    digit(low, 16),
    digit(low, 12),
    digit(low, 8),
    digit(low, 4),
    digit(low, 0),
  );
}

/**
 * The visitor of a visit (ADR 0053): SipHash-2-4, under the first 16 bytes of the day's secret salt, of
 * the link, the User-Agent's digest and the client's group (an IPv4 address or an IPv6 /64, CONTRACT §15),
 * as 16 hex digits. SipHash is a keyed pseudo-random function: without the salt nobody can compute or
 * test a visitor, and once the salt is deleted with its day no visitor can be tied to anyone.
 */
export function visitorHash(salt: VisitorKey | VisitorSalt, group: string, userAgent: AgentDigest | string, linkId: number): string {
  const key = typeof salt === "string" ? visitorKey(salt).key : salt.key;
  const agent = typeof userAgent === "string" ? agentDigest(userAgent) : userAgent;
  message[0] = linkId;
  message[1] = linkId >>> 8;
  message[2] = linkId >>> 16;
  message[3] = linkId >>> 24;
  for (let i = 0; i < 2; i++) {
    const half = agent[i] as number;
    message[4 + 4 * i] = half;
    message[5 + 4 * i] = half >>> 8;
    message[6 + 4 * i] = half >>> 16;
    message[7 + 4 * i] = half >>> 24;
  }
  let length = 12;
  // A client group is an address's text (ASCII), copied as it is; anything else goes through UTF-8.
  let ascii = group.length <= 256;
  for (let i = 0; ascii && i < group.length; i++) {
    const c = group.charCodeAt(i);
    if (c > 0x7f) ascii = false;
    else message[length++] = c;
  }
  if (!ascii) length = 12 + encoder.encodeInto(group.slice(0, 512), message.subarray(12)).written;
  sipHash24(key, message, length, out);
  return hex16(out[1] as number, out[0] as number);
}

/** The first instant (ms) of the UTC day after the one holding `at`. */
export function nextUtcDayStart(at: number): number {
  return (Math.floor(at / DAY_MS) + 1) * DAY_MS;
}
