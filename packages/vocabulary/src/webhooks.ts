/** The events a webhook can subscribe to (CONTRACT §18, and §25's `link.broken`), in the contract's order. */
export const WEBHOOK_EVENT_TYPES = ["link.created", "link.updated", "link.deleted", "link.clicked", "import.completed", "link.broken"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
