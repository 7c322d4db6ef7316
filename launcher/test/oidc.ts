import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";
import { freePort } from "@shortener/db/testing";

/**
 * A real OpenID Connect provider for the single sign-on tests (docs/sso.md): panva's oidc-provider on
 * 127.0.0.1, one static confidential client, and accounts whose email is verified or not. Its sign-in
 * pages are the library's development ones (any password; the login names the account), which a
 * browser or `createAgent` below fills in like a person would.
 */
export type TestAccount = { login: string; email: string; isEmailVerified: boolean; name: string };

export const CLIENT_ID = "shortener-test";
export const CLIENT_SECRET = "shortener-test-client-secret-0123456789";

export type TestProvider = { issuer: string; port: number; close(): Promise<void> };

export async function startTestProvider(options: { redirectUris: string[]; accounts: TestAccount[]; port?: number }): Promise<TestProvider> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map(options.accounts.map((account) => [account.login, account]));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
    cookies: { keys: ["oidc-provider test cookie key, not a secret"] },
    pkce: { required: () => true },
    // Lifetimes of its own (the library's defaults print a notice each), short as a test needs.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.isEmailVerified, name: account.name, preferred_username: id }) };
    },
  });
  // A sign-in page the provider cannot render is a test failure, not a silent one.
  provider.on("server_error", (_ctx, error) => console.error("oidc-provider server_error", error));
  const server: Server = createServer(provider.callback());
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => ok());
  });
  return {
    issuer,
    port,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

/**
 * A browser without a browser, for the HTTP tests: `fetch` with a cookie jar (by name, for 127.0.0.1,
 * whatever the port or path) and no automatic redirects.
 */
export function createAgent() {
  const jar = new Map<string, string>();
  const request = async (url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> => {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const res = await fetch(url, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: { ...(cookie ? { cookie } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";", 1)[0] ?? "";
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (!value || /;\s*max-age=0\b/i.test(line) || /;\s*expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  };
  return { jar, request };
}
export type Agent = ReturnType<typeof createAgent>;

/** The form of a provider page: where it posts and its hidden fields. */
function formOf(html: string, base: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form[^>]*action="([^"]+)"[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form?.[1] || form[2] === undefined) return null;
  const fields: Record<string, string> = {};
  for (const input of form[2].matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi)) if (input[1]) fields[input[1]] = input[2] ?? "";
  return { action: new URL(form[1].replace(/&amp;/g, "&"), base).href, fields };
}

/**
 * Walks a sign-in from the service's start URL through the provider's login and consent pages, as
 * `login`, up to the redirect back to the service: returns that callback URL, not yet followed.
 * `abort`: the person cancels at the login page instead (the provider answers access_denied).
 */
export async function walkToCallback(agent: Agent, startUrl: string, login: string, options: { abort?: boolean } = {}): Promise<string> {
  const callbackPrefix = new URL("/app/session/sso/callback", startUrl).href;
  let url = startUrl;
  for (let step = 0; step < 20; step++) {
    const res = await agent.request(url);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).href;
      if (next.startsWith(callbackPrefix)) return next;
      url = next;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
    const form = formOf(html, url);
    if (!form) throw new Error(`no form at ${url}: ${html.slice(0, 300)}`);
    if (options.abort && form.fields.prompt === "login") {
      url = new URL(`${new URL(form.action).pathname}/abort`, url).href;
      continue;
    }
    const body = new URLSearchParams({ ...form.fields, ...(form.fields.prompt === "login" ? { login, password: "any password" } : {}) }).toString();
    const posted = await agent.request(form.action, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    const after = posted.headers.get("location");
    if (!after) throw new Error(`the provider answered ${posted.status} to the ${form.fields.prompt ?? "?"} form: ${(await posted.text()).slice(0, 300)}`);
    const next = new URL(after, form.action).href;
    if (next.startsWith(callbackPrefix)) return next;
    url = next;
  }
  throw new Error("the sign-in did not come back to the service within 20 steps");
}
