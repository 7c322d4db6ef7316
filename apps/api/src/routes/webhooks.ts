import type { FastifyInstance, RouteHandlerMethod } from "fastify";
import {
  createWebhook,
  CreateWebhookInput,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  ListWebhookDeliveriesInput,
  listWebhooks,
  ListWebhooksInput,
  updateWebhook,
  UpdateWebhookInput,
} from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { sendDeleted, sendList, sendOne } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import { createdWebhookJson, webhookAttemptJson, webhookJson } from "../serialize/webhooks.ts";

/**
 * `/webhooks` (CONTRACT §18): the caller's webhooks, with the §2 envelopes, form or JSON bodies, and
 * 422s with every failing field; the secret only in the 201. `/webhooks/{id}/deliveries`: every
 * attempt, newest first. Someone else's webhook is a 404.
 */
export function webhookRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const options = { allowPrivateTargets: deps.config.webhookAllowPrivate };
  // Webhooks are settings of the account (and send link data out): the `account` scope (docs/adr/0027-scoped-api-keys.md).
  resource(app, "/webhooks", "account", "admin", {
    GET: async (request, reply) => sendList(request, reply, await listWebhooks({ ctx: ctxOf(deps, request), input: formInput(ListWebhooksInput, request.query) }), webhookJson),
    POST: async (request, reply) => {
      const { webhook, secret } = await createWebhook({ ctx: ctxOf(deps, request), input: formInput(CreateWebhookInput, request.body), options });
      return sendOne(reply, createdWebhookJson(webhook, secret), 201);
    },
  });
  const update: RouteHandlerMethod = async (request, reply) =>
    sendOne(reply, webhookJson(await updateWebhook({ ctx: ctxOf(deps, request), id: idParam(request.params), input: formInput(UpdateWebhookInput, request.body), options })));
  resource(app, "/webhooks/:id", "account", "admin", {
    GET: async (request, reply) => sendOne(reply, webhookJson(await getWebhook({ ctx: ctxOf(deps, request), id: idParam(request.params) }))),
    PUT: update,
    PATCH: update,
    DELETE: async (request, reply) => sendDeleted(reply, (await deleteWebhook({ ctx: ctxOf(deps, request), id: idParam(request.params) })).id, "webhook"),
  });
  resource(app, "/webhooks/:id/deliveries", "account", "admin", {
    GET: async (request, reply) =>
      sendList(
        request,
        reply,
        await listWebhookDeliveries({ ctx: ctxOf(deps, request), id: idParam(request.params), input: formInput(ListWebhookDeliveriesInput, request.query) }),
        webhookAttemptJson,
      ),
  });
}
