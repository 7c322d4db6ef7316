import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@shortener/vocabulary";
import { PageParams } from "../lists/pagination.ts";
import { urlField } from "../urls/url.ts";
import { notOneOfMessage } from "../validation/display-name.ts";
import { defaulted, intEnumField, intField, onCreate } from "../validation/fields.ts";

export { WEBHOOK_EVENT_TYPES, type WebhookEventType };

const EVENTS_MESSAGE = `The events must be a non-empty list of ${WEBHOOK_EVENT_TYPES.join(", ")}.`;

/** Forms may send a list as one comma-separated string. */
const splitList = (v: unknown) =>
  typeof v === "string"
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : v;

/**
 * `events[]=link.created&events[]=link.clicked`, `events=link.created,link.clicked` or a JSON array:
 * known names, answered in the contract's order without repeats. The preprocessors' parameter types are
 * what typed callers (tRPC) may send; forms send strings, checked all the same.
 */
const events = z.preprocess(
  (v: WebhookEventType[]) => splitList(v),
  z
    .array(
      z.enum(WEBHOOK_EVENT_TYPES, {
        error: (issue) => notOneOfMessage("event", issue.input, WEBHOOK_EVENT_TYPES),
      }),
      { error: EVENTS_MESSAGE },
    )
    .min(1, { error: EVENTS_MESSAGE })
    .max(WEBHOOK_EVENT_TYPES.length * 4, { error: EVENTS_MESSAGE })
    .transform((list) => WEBHOOK_EVENT_TYPES.filter((type) => list.includes(type))),
);

const requiredEvents = z.preprocess((v: WebhookEventType[]) => (v as WebhookEventType[] | undefined) ?? [], events);
const disabled = intEnumField("disabled", [0, 1] as const);

export const CreateWebhookShape = {
  url: z.preprocess((v: string) => (v as string | undefined) ?? "", urlField("url")),
  events: requiredEvents,
  disabled: defaulted(disabled, 0),
};
export const CreateWebhookInput = z.object(CreateWebhookShape);
export type CreateWebhookInput = z.input<typeof CreateWebhookInput>;

/** Only the fields sent change; `url` and `events` cannot be emptied. */
export const UpdateWebhookShape = {
  url: z.preprocess((v: string) => (v as string | null) ?? "", urlField("url")).optional(),
  events: z.preprocess((v: WebhookEventType[]) => (v as WebhookEventType[] | null) ?? [], events).optional(),
  disabled: onCreate(disabled),
};
export const UpdateWebhookInput = z.object(UpdateWebhookShape);
export type UpdateWebhookInput = z.input<typeof UpdateWebhookInput>;

export const ListWebhooksInput = z.object({ page: PageParams.page, per_page: PageParams.per_page, sort: PageParams.sort });
export type ListWebhooksInput = z.input<typeof ListWebhooksInput>;

/** The attempts of one webhook's deliveries, newest first; `delivery_id` keeps those of one delivery. */
export const ListWebhookDeliveriesInput = z.object({ page: PageParams.page, per_page: PageParams.per_page, delivery_id: onCreate(intField("delivery id", { min: 1 })) });
export type ListWebhookDeliveriesInput = z.input<typeof ListWebhookDeliveriesInput>;
