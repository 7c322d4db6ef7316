import * as oidc from "openid-client";
import type { SsoIdentity } from "@shortener/core";

/** OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET (docs/configuration.md, docs/sso.md). */
export type OidcSettings = { issuer: string; clientId: string; clientSecret: string };

/** What the start of a sign-in keeps for its callback (in the signed cookie of `pending-cookie.ts`). */
export type PendingSignIn = { state: string; nonce: string; verifier: string; redirectUri: string };

/** The provider cannot be reached, or answered what no provider should (a 502 `sso_unavailable`). */
export class SsoUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = "SsoUnavailableError";
  }
}

/** The callback cannot complete: the provider refused, or what came back does not check out (a 400). */
export class SsoCallbackError extends Error {
  constructor(
    readonly code: "sso_refused_by_provider" | "sso_failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "SsoCallbackError";
  }
}

/** How long one request to the provider may take, in seconds (openid-client's unit). */
const PROVIDER_TIMEOUT_S = 10;

/** An error of the provider's transport (unreachable, timed out, not an OAuth answer) rather than of this sign-in. */
function isTransportError(error: unknown): boolean {
  if (error instanceof TypeError) return true; // fetch failed: refused, reset, DNS
  const code = (error as { code?: unknown })?.code;
  return error instanceof oidc.ClientError && ["OAUTH_TIMEOUT", "OAUTH_ABORT", "OAUTH_RESPONSE_IS_NOT_CONFORM", "OAUTH_RESPONSE_IS_NOT_JSON", "OAUTH_PARSE_ERROR"].includes(String(code));
}

/** The provider's own word in an OAuth error, kept short and printable for a message. */
function oauthErrorOf(error: { error?: unknown }): string {
  return typeof error.error === "string" && /^[\x20-\x7e]{1,64}$/.test(error.error) ? error.error : "an error";
}

/**
 * The OpenID Connect relying party of the dashboard (docs/adr/0046-single-sign-on.md), over
 * openid-client: discovery of the issuer (once, shared by concurrent sign-ins; tried again after a
 * failure), the authorization-code flow with PKCE (S256), state and nonce, the ID token checked by the
 * library (signature, issuer, audience, expiry, nonce), and the email claims from the ID token or, when
 * it carries none, from the userinfo endpoint. An `http://` issuer is allowed only on a loopback address
 * (the settings check it): tests and local development.
 */
export function createOidcClient(settings: OidcSettings) {
  const issuer = new URL(settings.issuer);
  const isInsecure = issuer.protocol === "http:";
  let discovered: Promise<oidc.Configuration> | undefined;

  const discover = async (): Promise<oidc.Configuration> => {
    const execute = isInsecure ? [oidc.allowInsecureRequests] : [];
    const found = await oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, { execute, timeout: PROVIDER_TIMEOUT_S });
    // The client authentication the provider takes: client_secret_post when listed, else
    // client_secret_basic (the default of OpenID Connect Discovery when none is listed).
    const metadata = found.serverMetadata();
    const methods = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
    if (methods.includes("client_secret_post")) return found;
    const basic = new oidc.Configuration(metadata, settings.clientId, settings.clientSecret, oidc.ClientSecretBasic(settings.clientSecret));
    basic.timeout = PROVIDER_TIMEOUT_S;
    for (const run of execute) run(basic);
    return basic;
  };

  const configuration = async (): Promise<oidc.Configuration> => {
    const current = (discovered ??= discover());
    try {
      return await current;
    } catch (error) {
      if (discovered === current) discovered = undefined;
      throw new SsoUnavailableError(`discovery of ${issuer.href} failed: ${(error as Error).message}`, { cause: error });
    }
  };

  return {
    /** The issuer as configured. */
    issuer: issuer.href,

    /** The provider's authorization URL for a new sign-in, and what its callback must find again. */
    async begin(redirectUri: string): Promise<{ url: URL; pending: PendingSignIn }> {
      const config = await configuration();
      const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), redirectUri };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: "openid email profile",
        response_type: "code",
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: "S256",
      });
      return { url, pending };
    },

    /**
     * The identity behind a callback (`query`: the callback's query string): the code exchanged once,
     * the ID token checked against the pending sign-in. Throws `SsoCallbackError` (400) for what the
     * provider refused or what does not check out, `SsoUnavailableError` (502) when it cannot be reached.
     */
    async finish(query: URLSearchParams, pending: PendingSignIn): Promise<SsoIdentity> {
      const config = await configuration();
      const currentUrl = new URL(pending.redirectUri);
      for (const [name, value] of query) currentUrl.searchParams.append(name, value);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
      } catch (error) {
        if (error instanceof oidc.AuthorizationResponseError) {
          throw new SsoCallbackError("sso_refused_by_provider", `The identity provider refused the sign-in (${oauthErrorOf(error)}).`, { cause: error });
        }
        if (error instanceof oidc.ResponseBodyError) {
          throw new SsoCallbackError("sso_failed", `The identity provider did not accept this sign-in's code (${oauthErrorOf(error)}): it was used already or has expired. Start again.`, {
            cause: error,
          });
        }
        if (isTransportError(error)) throw new SsoUnavailableError(`the token request failed: ${(error as Error).message}`, { cause: error });
        throw new SsoCallbackError("sso_failed", "The identity provider's answer did not check out. Start again.", { cause: error });
      }
      const claims = tokens.claims();
      if (!claims) throw new SsoCallbackError("sso_failed", "The identity provider sent no ID token.");
      let email: unknown = claims.email;
      let emailVerified: unknown = claims.email_verified;
      let name: unknown = claims.name;
      let preferredUsername: unknown = claims.preferred_username;
      // Providers that keep the ID token small (and oidc-provider by default) give the email at userinfo.
      if ((email === undefined || emailVerified === undefined) && config.serverMetadata().userinfo_endpoint) {
        try {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
          email = email ?? info.email;
          emailVerified = emailVerified ?? info.email_verified;
          name = name ?? info.name;
          preferredUsername = preferredUsername ?? info.preferred_username;
        } catch (error) {
          if (isTransportError(error)) throw new SsoUnavailableError(`the userinfo request failed: ${(error as Error).message}`, { cause: error });
          throw new SsoCallbackError("sso_failed", "The identity provider's userinfo answer did not check out. Start again.", { cause: error });
        }
      }
      return { issuer: config.serverMetadata().issuer, subject: claims.sub, email, emailVerified, name, preferredUsername };
    },
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;
