import { and, eq } from "drizzle-orm";
import { webhooks, type Db, type WebhookEventType } from "@shortener/db";

/** A webhook as core returns it: never its secret (shown once, by `createWebhook`). */
export type Webhook = {
  id: number;
  userId: number;
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
  userId: webhooks.userId,
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
export async function findOwnedWebhook(db: Db, userId: number, id: number): Promise<Webhook | undefined> {
  const [row] = await db
    .select(webhookColumns)
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)));
  return row;
}
