import { describe, expectTypeOf, it } from "vitest";
import { createClient, verifyWebhook, type ClientError, type RouterInputs, type RouterOutputs, type WebhookPayload } from "../src/index.ts";

/**
 * Compile-time tests of the client's types. `tsc` checks this file (`pnpm typecheck`), and so does
 * vitest's typecheck mode (`pnpm test`): an `@ts-expect-error` line that compiles fails both. Nothing
 * here runs; the calls would need a server (client.db.test.ts makes real ones).
 */
const client = createClient({ url: "http://127.0.0.1:3000", apiKey: "shk_test" });

describe("@shortener/client types", () => {
  it("answers REST's objects", () => {
    expectTypeOf<RouterOutputs["links"]["get"]["short_url"]>().toEqualTypeOf<string>();
    expectTypeOf<RouterOutputs["links"]["get"]["title"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["links"]["get"]["disabled"]>().toEqualTypeOf<0 | 1>();
    expectTypeOf<RouterOutputs["links"]["get"]["domain"]["url"]>().toEqualTypeOf<string>();
    expectTypeOf<RouterOutputs["links"]["list"]["data"]>().toEqualTypeOf<Array<RouterOutputs["links"]["get"]>>();
    expectTypeOf<RouterOutputs["links"]["list"]["meta"]>().toEqualTypeOf<{
      current_page: number;
      from: number | null;
      last_page: number;
      per_page: number;
      to: number | null;
      total: number;
    }>();
    expectTypeOf<RouterOutputs["links"]["delete"]>().toEqualTypeOf<{ id: number; object: "link"; deleted: true }>();
    expectTypeOf<RouterOutputs["account"]["get"]["role"]>().toEqualTypeOf<"admin" | "user">();
    expectTypeOf<RouterOutputs["account"]["rotateKey"]>().toEqualTypeOf<{ api_key: string }>();
    // The audit log (CONTRACT §24): its entries and its filters, typed.
    expectTypeOf<RouterOutputs["audit"]["list"]["data"][number]["action"]>().toEqualTypeOf<string>();
    expectTypeOf<RouterOutputs["audit"]["list"]["data"][number]["object_id"]>().toEqualTypeOf<number | string | null>();
    expectTypeOf<RouterOutputs["audit"]["list"]["data"][number]["actor_key_id"]>().toEqualTypeOf<number | null>();
    expectTypeOf<RouterInputs["audit"]["list"]>().toHaveProperty("object_type");
    expectTypeOf(client.domains.get.query).returns.resolves.toEqualTypeOf<RouterOutputs["domains"]["get"]>();
    expectTypeOf<RouterOutputs["domains"]["get"]["verified"]>().toEqualTypeOf<boolean>();
    // CONTRACT §25: a domain's app-link files (JSON text), and a link's Open Graph fields; a link's domain has no files.
    expectTypeOf<RouterOutputs["domains"]["get"]["apple_app_site_association"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["domains"]["list"]["data"][number]["asset_links"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["links"]["get"]["domain"]>().not.toHaveProperty("asset_links");
    expectTypeOf<RouterOutputs["links"]["get"]["og_title"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["links"]["get"]["og_image"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterInputs["links"]["update"]["og_description"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<RouterInputs["links"]["bulkUpdate"]["og_image"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<RouterInputs["domains"]["update"]["apple_app_site_association"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<RouterOutputs["domains"]["get"]["verification"]>().toEqualTypeOf<{ type: "TXT"; name: string; value: string } | null>();
    expectTypeOf<RouterOutputs["links"]["get"]["domain"]["verified"]>().toEqualTypeOf<boolean>();
    // CONTRACT §25: the destination's health, as the worker last found it.
    expectTypeOf<RouterOutputs["links"]["get"]["health"]>().toEqualTypeOf<"ok" | "broken" | "unchecked">();
    expectTypeOf<RouterOutputs["links"]["get"]["health_reason"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["links"]["get"]["health_checked_at"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterInputs["links"]["list"]["health"]>().toEqualTypeOf<"ok" | "broken" | "unchecked" | null | undefined>();
    // @ts-expect-error an unknown health does not compile
    void client.links.list.query({ health: "dead" });
    expectTypeOf(client.domains.verify.mutate).parameter(0).toEqualTypeOf<{ id: number }>();
    expectTypeOf(client.domains.verify.mutate).returns.resolves.toEqualTypeOf<RouterOutputs["domains"]["get"]>();
  });

  it("takes core's input schemas", () => {
    expectTypeOf<RouterInputs["links"]["get"]>().toEqualTypeOf<{ id: number }>();
    expectTypeOf<RouterInputs["links"]["list"]["sort_by"]>().toEqualTypeOf<"id" | "clicks" | "title" | "alias" | "url" | null | undefined>();
    expectTypeOf<RouterInputs["links"]["update"]>().toHaveProperty("id").toEqualTypeOf<number>();
    expectTypeOf<RouterInputs["links"]["update"]>().toHaveProperty("title").toEqualTypeOf<string | null | undefined>();
    // Real input types, not `unknown` (form strings are REST's concern: it decodes them before parsing).
    expectTypeOf<RouterInputs["links"]["create"]["url"]>().toEqualTypeOf<string>();
    expectTypeOf<RouterInputs["links"]["create"]["domain_id"]>().toEqualTypeOf<number>();
    expectTypeOf<RouterInputs["links"]["create"]["pixel_ids"]>().toEqualTypeOf<number[] | null | undefined>();
    expectTypeOf<RouterInputs["links"]["create"]["disabled"]>().toEqualTypeOf<0 | 1 | null | undefined>();
    expectTypeOf<RouterInputs["links"]["list"]["per_page"]>().toEqualTypeOf<10 | 25 | 50 | 100 | null | undefined>();
    expectTypeOf<RouterInputs["links"]["list"]["page"]>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<RouterInputs["stats"]["get"]["link_id"]>().toEqualTypeOf<number>();
    // CONTRACT §17 bulk: 1–100 ids beside the update fields; the answers are REST's objects.
    expectTypeOf<RouterInputs["links"]["bulkDelete"]>().toEqualTypeOf<{ ids: number[] }>();
    expectTypeOf<RouterInputs["links"]["bulkUpdate"]["ids"]>().toEqualTypeOf<number[]>();
    expectTypeOf<RouterInputs["links"]["bulkUpdate"]["title"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<RouterOutputs["links"]["bulkUpdate"]["data"]>().toEqualTypeOf<Array<RouterOutputs["links"]["get"]>>();
    expectTypeOf<RouterOutputs["links"]["bulkDelete"]["data"]>().toEqualTypeOf<Array<{ id: number; object: "link"; deleted: true }>>();
  });

  it("types the errors with REST's slug and field errors", () => {
    expectTypeOf<NonNullable<ClientError["data"]>["slug"]>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<ClientError["data"]>["fieldErrors"]>().toEqualTypeOf<Record<string, string[]> | null>();
  });

  it("refuses wrong procedures, field names and field types", () => {
    const never = () => {
      // @ts-expect-error no such procedure
      void client.links.craete.mutate({ url: "https://example.com/", domain_id: 1 });
      // @ts-expect-error a query is not a mutation
      void client.links.list.mutate({});
      // @ts-expect-error `titel` is no field of a link
      void client.links.create.mutate({ url: "https://example.com/", domain_id: 1, titel: "x" });
      // @ts-expect-error a title is a string
      void client.links.create.mutate({ url: "https://example.com/", domain_id: 1, title: 5 });
      // @ts-expect-error an alias is a string
      void client.links.create.mutate({ url: "https://example.com/", domain_id: 1, alias: 12345 });
      // @ts-expect-error `url` is required
      void client.links.create.mutate({ domain_id: 1 });
      // @ts-expect-error a url is a string
      void client.links.create.mutate({ url: 42, domain_id: 1 });
      // @ts-expect-error `domain_id` is required on create
      void client.links.create.mutate({ url: "https://example.com/" });
      // @ts-expect-error a domain id is a number, not a form string
      void client.links.create.mutate({ url: "https://example.com/", domain_id: "1" });
      // @ts-expect-error pixel ids are an array of numbers
      void client.links.create.mutate({ url: "https://example.com/", domain_id: 1, pixel_ids: "1,2" });
      // @ts-expect-error per_page is 10, 25, 50 or 100
      void client.links.list.query({ per_page: "banana" });
      // @ts-expect-error per_page is 10, 25, 50 or 100
      void client.links.list.query({ per_page: 7 });
      // @ts-expect-error disabled is 0 or 1
      void client.links.update.mutate({ id: 1, disabled: 2 });
      // @ts-expect-error a stats series is named
      void client.stats.get.query({ link_id: 1, name: "visits" });
      // @ts-expect-error sort_by is one of id, clicks, title, alias, url
      void client.links.list.query({ sort_by: "created_at" });
      // @ts-expect-error sort is asc or desc
      void client.domains.list.query({ sort: "up" });
      // @ts-expect-error an id is a number
      void client.links.get.query({ id: "12" });
      // @ts-expect-error the id is required
      void client.links.delete.mutate({});
      // @ts-expect-error the domain of a link cannot change
      void client.links.update.mutate({ id: 1, domain_id: 2 });
      // @ts-expect-error a domain's name cannot change
      void client.domains.update.mutate({ id: 1, name: "other.example" });
      // @ts-expect-error a space's name is a string
      void client.spaces.create.mutate({ name: 1 });
      // @ts-expect-error account.get takes no input
      void client.account.get.query({ id: 1 });
    };
    expectTypeOf(never).toBeFunction();
  });

  it("types the statistics of CONTRACT §21: the summary, the rows' new columns, the account and a domain's orphan visits", () => {
    type Summary = { clicks: number; unique_visitors: number; bots: number; imported_clicks: number; first_click_at: string | null; last_click_at: string | null };
    type Row = { value: string; id?: number; count: number; unique?: number; bots?: number };
    expectTypeOf<RouterOutputs["stats"]["summary"]>().toEqualTypeOf<Summary>();
    expectTypeOf<RouterInputs["stats"]["summary"]>().toEqualTypeOf<{ link_id: number; from?: string | null | undefined; to?: string | null | undefined }>();
    expectTypeOf<RouterOutputs["stats"]["get"]["data"][number]>().toEqualTypeOf<Row>();
    expectTypeOf<RouterInputs["stats"]["get"]["name"]>().toEqualTypeOf<"clicks" | "clicks_hour" | "country" | "platform" | "browser" | "device" | "language" | "referrer" | "bots" | "variant">();
    expectTypeOf<RouterInputs["stats"]["account"]["name"]>().toEqualTypeOf<"summary" | "clicks" | "links" | "country" | "platform" | "browser" | "device" | "language" | "referrer">();
    expectTypeOf<RouterOutputs["stats"]["account"]>().toEqualTypeOf<Summary | { data: Row[]; meta: RouterOutputs["links"]["list"]["meta"] }>();
    expectTypeOf<RouterInputs["domains"]["visits"]["name"]>().toEqualTypeOf<"summary" | "clicks" | "alias">();
    expectTypeOf<RouterOutputs["domains"]["visits"]>().toEqualTypeOf<
      { index: number; not_found: number; disabled: number; expired: number; bots: number } | { data: Row[]; meta: RouterOutputs["links"]["list"]["meta"] }
    >();
    // @ts-expect-error an account has no hourly series
    void client.stats.account.query({ name: "clicks_hour" });
    // @ts-expect-error a domain's visits need its id
    void client.domains.visits.query({ name: "summary" });
  });

  it("types named API keys (CONTRACT §17): the scopes, the secret only on create", () => {
    type Scope = "links:read" | "links:write" | "domains:read" | "domains:write" | "stats:read" | "imports:write" | "account";
    expectTypeOf<RouterOutputs["account"]["apiKeys"]["create"]["api_key"]>().toEqualTypeOf<string>();
    expectTypeOf<RouterOutputs["account"]["apiKeys"]["list"]["data"][number]>().not.toHaveProperty("api_key");
    expectTypeOf<RouterOutputs["account"]["apiKeys"]["list"]["data"][number]["scopes"]>().toEqualTypeOf<Scope[]>();
    expectTypeOf<RouterOutputs["account"]["apiKeys"]["list"]["data"][number]["expires_at"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["account"]["apiKeys"]["delete"]>().toEqualTypeOf<{ id: number; object: "api_key"; deleted: true }>();
    expectTypeOf<RouterInputs["account"]["apiKeys"]["create"]["scopes"]>().toEqualTypeOf<Scope[]>();
    // @ts-expect-error an unknown scope does not compile
    void client.account.apiKeys.create.mutate({ name: "ci", scopes: ["links:delete"] });
    // @ts-expect-error the scopes are required
    void client.account.apiKeys.create.mutate({ name: "ci" });
  });

  it("types webhooks: the secret only on create, the events, and each delivery's data by its type", () => {
    expectTypeOf<RouterOutputs["webhooks"]["create"]["secret"]>().toEqualTypeOf<string>();
    expectTypeOf<RouterOutputs["webhooks"]["get"]>().not.toHaveProperty("secret");
    expectTypeOf<RouterOutputs["webhooks"]["get"]["events"]>().toEqualTypeOf<Array<"link.created" | "link.updated" | "link.deleted" | "link.clicked" | "import.completed" | "link.broken">>();
    expectTypeOf<RouterOutputs["webhooks"]["deliveries"]["data"][number]["next_try_at"]>().toEqualTypeOf<string | null>();
    expectTypeOf<RouterOutputs["webhooks"]["deliveries"]["data"][number]["status"]>().toEqualTypeOf<"succeeded" | "failed">();
    // @ts-expect-error an unknown event does not compile
    void client.webhooks.create.mutate({ url: "https://hooks.example/", events: ["link.exploded"] });
    expectTypeOf(verifyWebhook).returns.toEqualTypeOf<boolean>();
    const payload = {} as WebhookPayload;
    if (payload.type === "link.clicked") expectTypeOf(payload.data).toEqualTypeOf<{ link_id: number; clicks: number; from: string; to: string }>();
    if (payload.type === "link.deleted") expectTypeOf(payload.data).toEqualTypeOf<RouterOutputs["links"]["get"]>();
    if (payload.type === "import.completed") expectTypeOf(payload.data.status).toEqualTypeOf<"queued" | "running" | "completed" | "failed">();
    if (payload.type === "link.broken") expectTypeOf(payload.data.health).toEqualTypeOf<"ok" | "broken" | "unchecked">();
  });
});
