import { EventEmitter } from "node:events";
import { sql } from "drizzle-orm";
import type { Db } from "@shortener/db";

/** The NOTIFY channel on which every change that a process may cache is announced. */
export const CHANGES_CHANNEL = "shortener_changes";

/** What changed: a domain by name, one link, or a user's API keys. */
export type Change =
  | { kind: "domain"; name: string }
  | { kind: "link"; id: number; domainId: number; alias: string }
  | { kind: "keys"; userId: number };

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

/** Tells this process's listeners about a change without announcing it to other processes. */
export function emitLocalChange(change: Change): void {
  local.emit("change", change);
}

/** Subscribes to the changes this process makes; returns the unsubscribe function. */
export function onLocalChange(listener: (change: Change) => void): () => void {
  local.on("change", listener);
  return () => local.off("change", listener);
}
