import { and, eq } from "drizzle-orm";
import { webhooks, type Db, type WebhookEventType } from "@shortener/db";
import type { FieldErrors } from "../errors.ts";
import type { Bounds, Scope } from "../users/scopes.ts";
import { addError } from "../validation/fields.ts";

/** A webhook as core returns it: never its secret (shown once, by `createWebhook`). */
export type Webhook = {
  id: number;
  workspaceId: number;
  url: string;
  events: WebhookEventType[];
  disabled: boolean;
  /** When its current run of failed attempts began; null after a success. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

export const webhookColumns = {
  id: webhooks.id,
  workspaceId: webhooks.workspaceId,
  url: webhooks.url,
  events: webhooks.events,
  disabled: webhooks.disabled,
  failingSince: webhooks.failingSince,
  createdAt: webhooks.createdAt,
  updatedAt: webhooks.updatedAt,
};

/** A user may have this many webhooks. */
export const MAX_WEBHOOKS_PER_USER = 25;

/** One of the user's webhooks, or undefined (another user's does not exist for them). */
export async function findOwnedWebhook(db: Db, workspaceId: number, id: number): Promise<Webhook | undefined> {
  const [row] = await db
    .select(webhookColumns)
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, workspaceId)));
  return row;
}

/**
 * The scope that reads what each event carries: a webhook sends it elsewhere, so subscribing to it needs
 * that scope besides `account` (docs/adr/0033-session-bounds.md). Links' events carry the link
 * (`links:read`), clicks the counts (`stats:read`), imports the job (`imports:write`, which follows imports).
 */
export const EVENT_SCOPES: Record<WebhookEventType, Scope> = {
  "link.created": "links:read",
  "link.updated": "links:read",
  "link.deleted": "links:read",
  "link.clicked": "stats:read",
  "import.completed": "imports:write",
  "link.broken": "links:read",
};

/** A 422 on `events` for each event whose data the caller could not read itself. */
export function checkEventScopes(bounds: Bounds | undefined, events: readonly WebhookEventType[], errors: FieldErrors): void {
  if (!bounds) return;
  const beyond = events.filter((event) => !bounds.scopes.includes(EVENT_SCOPES[event]));
  if (beyond.length) addError(errors, "events", `You cannot subscribe to ${beyond.join(", ")} without the ${[...new Set(beyond.map((event) => EVENT_SCOPES[event]))].join(", ")} scope.`);
}
