import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import { sql } from "drizzle-orm";
import type { Db } from "@shortener/db";

/** The NOTIFY channel on which every change that a process may cache is announced. */
export const CHANGES_CHANNEL = "shortener_changes";

/** One link as a change names it: its id, and the (domain, alias) key the visitor side caches it under. */
export type LinkKey = { id: number; domainId: number; alias: string };

/**
 * What changed: a domain by name, one link, many links at once (a bulk change, CONTRACT §17), or a
 * user's API keys. `links` extends the format compatibly: a listener that does not know it ignores it
 * (and only its TTL then drops what changed).
 */
export type Change =
  { kind: "domain"; name: string } | ({ kind: "link" } & LinkKey) | { kind: "links"; links: Array<[id: number, domainId: number, alias: string]> } | { kind: "keys"; userId: number };

/** Postgres refuses a NOTIFY payload of 8,000 bytes or more; a bulk change stays under this. */
export const MAX_PAYLOAD_BYTES = 7_900;

const local = new EventEmitter();
local.setMaxListeners(0);

/**
 * Announces a change to every process. Sent inside the caller's transaction, so Postgres delivers it
 * only when (and if) the transaction commits. This process also hears it at once, before the commit:
 * its caches drop the entry now, and again when the notification arrives.
 */
export async function notifyChange(db: Db, change: Change): Promise<void> {
  await db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(change)})`);
  emitLocalChange(change);
}

/**
 * Announces a change of many links in one notification (a bulk update or delete of up to 100 links).
 * Only when the keys would not fit in one payload (very long aliases) are they split over as few
 * notifications as fit, each still carrying many links.
 */
export async function notifyLinksChange(db: Db, keys: LinkKey[]): Promise<void> {
  for (const chunk of payloadChunks(keys)) await notifyChange(db, { kind: "links", links: chunk });
}

/** The keys as `[id, domainId, alias]` tuples, cut into chunks whose JSON payload fits a NOTIFY. */
export function payloadChunks(keys: LinkKey[]): Array<Array<[number, number, string]>> {
  const chunks: Array<Array<[number, number, string]>> = [];
  let chunk: Array<[number, number, string]> = [];
  let bytes = JSON.stringify({ kind: "links", links: [] }).length;
  const base = bytes;
  for (const { id, domainId, alias } of keys) {
    const tuple: [number, number, string] = [id, domainId, alias];
    const size = Buffer.byteLength(JSON.stringify(tuple)) + 1;
    if (chunk.length && bytes + size > MAX_PAYLOAD_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = base;
    }
    chunk.push(tuple);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

/** Tells this process's listeners about a change without announcing it to other processes. */
export function emitLocalChange(change: Change): void {
  local.emit("change", change);
}

/** Subscribes to the changes this process makes; returns the unsubscribe function. */
export function onLocalChange(listener: (change: Change) => void): () => void {
  local.on("change", listener);
  return () => local.off("change", listener);
}
