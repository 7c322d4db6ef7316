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
import { router, scoped } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/** CONTRACT §18 on tRPC: the same verbs, schemas, JSON and scope (`account`) as REST's `/webhooks`. */
export const webhooksRouter = router({
  list: scoped("account", "admin")
    .input(ListWebhooksInput)
    .query(async ({ ctx, input }) => toListJson(await listWebhooks({ ctx: ctx.core, input }), webhookJson)),
  get: scoped("account", "admin")
    .input(IdInput)
    .query(async ({ ctx, input }) => webhookJson(await getWebhook({ ctx: ctx.core, id: input.id }))),
  create: scoped("account", "admin")
    .input(CreateWebhookInput)
    .mutation(async ({ ctx, input }) => {
      const { webhook, secret } = await createWebhook({ ctx: ctx.core, input, options: ctx.webhookOptions });
      return createdWebhookJson(webhook, secret);
    }),
  update: scoped("account", "admin")
    .input(IdInput)
    .input(UpdateWebhookInput)
    .mutation(async ({ ctx, input }) => webhookJson(await updateWebhook({ ctx: ctx.core, id: input.id, input, options: ctx.webhookOptions }))),
  delete: scoped("account", "admin")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteWebhook({ ctx: ctx.core, id: input.id }), "webhook")),
  /** The attempts of one webhook's deliveries, newest first. */
  deliveries: scoped("account", "admin")
    .input(IdInput)
    .input(ListWebhookDeliveriesInput)
    .query(async ({ ctx, input }) => toListJson(await listWebhookDeliveries({ ctx: ctx.core, id: input.id, input }), webhookAttemptJson)),
});
