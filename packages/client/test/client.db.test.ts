import { startTestServer, type TestServer } from "@shortener/launcher/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, isClientError, trpcUrl, type ClientError } from "../src/index.ts";

/**
 * The client against the real all-in-one server over HTTP, as an internal service uses it. The first
 * test is the example of docs/internal-services.md, step by step.
 */
const ADMIN_KEY = `shk_${"C".repeat(40)}`;
let running: TestServer;
let base: string;

beforeAll(async () => {
  running = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY });
  base = running.base;
});
afterAll(async () => {
  await running?.close();
});

/** The error a call fails with (the test fails if it does not). */
async function failure(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (error) {
    if (isClientError(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("@shortener/client against the running service", () => {
  it("creates a domain, then creates and lists links (docs/internal-services.md)", async () => {
    const shortener = createClient({ url: base, apiKey: ADMIN_KEY });

    const domain = await shortener.domains.create.mutate({ name: `go-${Date.now()}.example` });
    expect(domain.url).toBe(`https://${domain.name}`);

    const link = await shortener.links.create.mutate({ url: "https://example.com/docs?from=client", domain_id: domain.id, alias: "docs", title: "Docs" });
    expect(link).toMatchObject({ alias: "docs", short_url: `https://${domain.name}/docs`, status: 1, domain: { id: domain.id } });

    const { data, meta } = await shortener.links.list.query({ domain_id: domain.id, sort_by: "alias", sort: "asc" });
    expect(data.map((l) => l.short_url)).toEqual([link.short_url]);
    expect(meta).toMatchObject({ total: 1, current_page: 1, last_page: 1 });
  });

  it("reads the audit log (CONTRACT §24): a change's entry, filtered by object; a bad filter's field errors", async () => {
    const shortener = createClient({ url: base, apiKey: ADMIN_KEY });
    const space = await shortener.spaces.create.mutate({ name: `audit-${Date.now()}` });
    const { data, meta } = await shortener.audit.list.query({ object_type: "space", object_id: space.id });
    expect(meta.total).toBe(1);
    expect(data[0]).toMatchObject({ action: "space.created", object_type: "space", object_id: space.id, actor_session_id: null, changes: { name: { after: space.name } } });
    const error = await failure(shortener.audit.list.query({ object_id: "1" }));
    expect(error.data?.fieldErrors).toEqual({ object_id: ["The object id needs an object type (object_type)."] });
  });

  it("a missing resource is a typed TRPCClientError with NOT_FOUND", async () => {
    const shortener = createClient({ url: `${base}/trpc`, apiKey: ADMIN_KEY });
    const error = await failure(shortener.links.get.query({ id: 2_000_000_000 }));
    expect(error.message).toBe("Resource not found.");
    expect(error.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404, slug: "not_found", fieldErrors: null });
  });

  it("a validation error carries REST's field errors", async () => {
    const shortener = createClient({ url: base, apiKey: ADMIN_KEY });
    const domain = await shortener.domains.create.mutate({ name: `v-${Date.now()}.example` });
    const error = await failure(shortener.links.create.mutate({ url: "javascript:alert(1)", domain_id: domain.id, alias: "a b", expiration_clicks: -1 }));
    expect(error.data?.code).toBe("BAD_REQUEST");
    expect(error.data?.slug).toBe("validation_failed");
    expect(Object.keys(error.data?.fieldErrors ?? {}).sort()).toEqual(["alias", "expiration_clicks", "url"]);

    const link = await shortener.links.create.mutate({ url: "https://example.com/", domain_id: domain.id });
    // @ts-expect-error the domain of a link cannot change: the type refuses it, and so does the server
    const moved = await failure(shortener.links.update.mutate({ id: link.id, domain_id: domain.id }));
    expect(moved.data?.fieldErrors).toEqual({ domain_id: ["The domain id cannot be changed."] });
  });

  it("batches calls made together into one request, and answers each", async () => {
    const requests: string[] = [];
    const counting: typeof fetch = (input, init) => {
      requests.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const shortener = createClient({ url: base, apiKey: ADMIN_KEY, fetch: counting });
    const [account, domains, missing] = await Promise.allSettled([shortener.account.get.query(), shortener.domains.list.query({}), shortener.spaces.get.query({ id: 2_000_000_000 })]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toContain("/trpc/account.get,domains.list,spaces.get?batch=1");
    expect(account.status === "fulfilled" && account.value.role).toBe("admin");
    expect(domains.status === "fulfilled" && domains.value.meta.total).toBeGreaterThanOrEqual(1);
    expect(missing.status === "rejected" && (missing.reason as ClientError).data?.code).toBe("NOT_FOUND");
  });

  it("a wrong key is UNAUTHORIZED", async () => {
    const error = await failure(createClient({ url: base, apiKey: `shk_${"0".repeat(40)}` }).account.get.query());
    expect(error.data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401, slug: "unauthenticated" });
  });

  it("takes the service's base URL or its /trpc endpoint", () => {
    expect(trpcUrl("http://s:3000")).toBe("http://s:3000/trpc");
    expect(trpcUrl("http://s:3000/")).toBe("http://s:3000/trpc");
    expect(trpcUrl("http://s:3000/trpc/")).toBe("http://s:3000/trpc");
    expect(trpcUrl("https://s.internal/shortener")).toBe("https://s.internal/shortener/trpc");
  });
});
