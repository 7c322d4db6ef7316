import { webhooks } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { listOwnedRows } from "../lists/list-owned-rows.ts";
import type { Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { ListWebhooksInput } from "./schemas.ts";
import { webhookColumns, type Webhook } from "./webhook.ts";

/** A page of the caller's webhooks, by id. */
export async function listWebhooks({ ctx, input }: { ctx: Ctx; input: ListWebhooksInput | undefined }): Promise<Page<Webhook>> {
  const params = parseInput(ListWebhooksInput, input ?? {});
  return listOwnedRows<Webhook>({
    db: ctx.db,
    table: webhooks,
    select: webhookColumns,
    workspaceId: ctx.actor.workspaceId,
    workspaceColumn: webhooks.workspaceId,
    idColumn: webhooks.id,
    sortColumn: webhooks.id,
    sort: params.sort,
    page: params.page,
    perPage: params.per_page,
  });
}
