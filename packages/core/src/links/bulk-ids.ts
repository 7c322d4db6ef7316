import { and, eq, inArray } from "drizzle-orm";
import { links } from "@shortener/db";
import type { FieldErrors } from "../errors.ts";

/** `ids.3` (one bad element) → `ids`: a bulk request's ids fail as one field (CONTRACT §17). */
export function foldIdErrors(errors: FieldErrors): void {
  for (const field of Object.keys(errors)) {
    if (!field.startsWith("ids.")) continue;
    const messages = errors[field] ?? [];
    delete errors[field];
    const list = (errors.ids ??= []);
    for (const message of messages) if (!list.includes(message)) list.push(message);
  }
}

/** Unknown and foreign ids alike (never telling them apart, CONTRACT §1). */
export function invalidIdsMessage(missing: number[]): string {
  return `The selected ids are invalid: ${missing.join(", ")}.`;
}

/** The caller's links among `ids`. */
export function ownedAmong(workspaceId: number, ids: number[]) {
  return and(inArray(links.id, ids), eq(links.workspaceId, workspaceId));
}

/** Adds `from`'s messages to `into`, each message once per field. */
export function mergeErrors(into: FieldErrors, from: FieldErrors): void {
  for (const [field, messages] of Object.entries(from)) {
    const list = (into[field] ??= []);
    for (const message of messages) if (!list.includes(message)) list.push(message);
  }
}
