import { createTRPCClient, httpBatchLink, TRPCClientError, type TRPCClient } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
// Only the router's type: nothing of the API's code ends up in a service that uses this client.
import type { AppRouter } from "@shortener/api";

export type ClientOptions = {
  /** The service's base URL (`http://shortener.internal:3000`); `/trpc` is added unless it is there already. */
  url: string;
  /** An API key (`shk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Another `fetch` (a proxy agent, a test double of the network); the global one by default. */
  fetch?: typeof fetch;
};

/** Calls a page of the same tick are sent as one HTTP request; each call still counts against the key's limit. */
const MAX_BATCH = 10;

/**
 * A fully typed client of the service's tRPC API (CONTRACT §11): inputs are the zod schemas the REST API
 * validates with, outputs the JSON REST returns as `data`; lists answer `{ data, meta }`.
 *
 * ```ts
 * const shortener = createClient({ url: "http://localhost:3000", apiKey: process.env.SHORTENER_KEY });
 * const link = await shortener.links.create.mutate({ url: "https://example.com/", domain_id: 1 });
 * ```
 */
export function createClient({ url, apiKey, fetch }: ClientOptions): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: trpcUrl(url),
        headers: () => ({ authorization: `Bearer ${apiKey}` }),
        maxItems: MAX_BATCH,
        maxURLLength: 8_000,
        ...(fetch ? { fetch } : {}),
      }),
    ],
  });
}

export function trpcUrl(url: string): string {
  const base = url.replace(/\/+$/, "");
  return base.endsWith("/trpc") ? base : `${base}/trpc`;
}

export type Client = TRPCClient<AppRouter>;
/** `RouterInputs["links"]["create"]`: what a procedure takes. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** `RouterOutputs["links"]["get"]`: what a procedure answers, e.g. REST's link object. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/**
 * What a failed call rejects with. `error.data.code` is tRPC's code (`NOT_FOUND`, `BAD_REQUEST`,
 * `UNAUTHORIZED`, `TOO_MANY_REQUESTS`…), `error.data.slug` REST's (`not_found`, `validation_failed`…),
 * and `error.data.fieldErrors` the `{ field: [sentence] }` of a validation error.
 */
export type ClientError = TRPCClientError<AppRouter>;

export function isClientError(error: unknown): error is ClientError {
  return error instanceof TRPCClientError;
}

import type { WebhookEventType } from "./webhooks.ts";
export { verifyWebhook, WEBHOOK_EVENTS, DEFAULT_TOLERANCE_SECONDS, type WebhookEventType } from "./webhooks.ts";

/**
 * What a webhook delivery's body holds (CONTRACT §18): `id` is the delivery's id (the
 * `Shortener-Delivery` header; dedupe on it), `data` the link as `links.get` answers it, the import job
 * as `imports.get` does, or for `link.clicked` the clicks of one link added up over one write. `link.broken`
 * (CONTRACT §25) carries the link whose destination the worker has just found broken, its `health_reason` set.
 */
export type WebhookPayload =
  | WebhookDelivery<"link.created", RouterOutputs["links"]["get"]>
  | WebhookDelivery<"link.updated", RouterOutputs["links"]["get"]>
  | WebhookDelivery<"link.deleted", RouterOutputs["links"]["get"]>
  | WebhookDelivery<"link.clicked", { link_id: number; clicks: number; from: string; to: string }>
  | WebhookDelivery<"import.completed", RouterOutputs["imports"]["get"]>
  | WebhookDelivery<"link.broken", RouterOutputs["links"]["get"]>;

/** One delivery's body: its id, event type, when the event happened, and the event's data. */
export type WebhookDelivery<T extends WebhookEventType, D> = { id: number; type: T; created_at: string; data: D };
