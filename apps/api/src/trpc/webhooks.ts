import {
  CreateWebhookInput,
  createWebhook,
  deleteWebhook,
  getWebhook,
  IdInput,
  ListWebhookDeliveriesInput,
  listWebhookDeliveries,
  ListWebhooksInput,
  listWebhooks,
  UpdateWebhookInput,
  updateWebhook,
} from "@shortener/core";
import { createdWebhookJson, webhookAttemptJson, webhookJson } from "../serialize/webhooks.ts";
import { procedure, router } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/** CONTRACT §18 on tRPC: the same verbs, schemas and JSON as REST's `/webhooks`. */
export const webhooksRouter = router({
  list: procedure.input(ListWebhooksInput).query(async ({ ctx, input }) => toListJson(await listWebhooks({ ctx: ctx.core, input }), webhookJson)),
  get: procedure.input(IdInput).query(async ({ ctx, input }) => webhookJson(await getWebhook({ ctx: ctx.core, id: input.id }))),
  create: procedure.input(CreateWebhookInput).mutation(async ({ ctx, input }) => {
    const { webhook, secret } = await createWebhook({ ctx: ctx.core, input, options: ctx.webhookOptions });
    return createdWebhookJson(webhook, secret);
  }),
  update: procedure
    .input(IdInput)
    .input(UpdateWebhookInput)
    .mutation(async ({ ctx, input }) => webhookJson(await updateWebhook({ ctx: ctx.core, id: input.id, input, options: ctx.webhookOptions }))),
  delete: procedure.input(IdInput).mutation(async ({ ctx, input }) => toDeletedJson(await deleteWebhook({ ctx: ctx.core, id: input.id }), "webhook")),
  /** The attempts of one webhook's deliveries, newest first. */
  deliveries: procedure
    .input(IdInput)
    .input(ListWebhookDeliveriesInput)
    .query(async ({ ctx, input }) => toListJson(await listWebhookDeliveries({ ctx: ctx.core, id: input.id, input }), webhookAttemptJson)),
});
