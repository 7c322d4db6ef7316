import { initTRPC, TRPCError } from "@trpc/server";
import type { FastifyBaseLogger } from "fastify";
import { hasScope, type Ctx, type QrCache, type Scope, type WebhookTargetOptions } from "@shortener/core";
import { assertRole, type RouteRole } from "../http/auth.ts";
import type { DomainVerbs } from "../domain-policy.ts";
import type { PasswordTry } from "../http/sign-in-tries.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { Serializers } from "../serialize/resources.ts";
import { HttpError } from "../errors.ts";
import { rejectNul } from "../http/nul.ts";
import { formatTrpcError, toTrpcError } from "./errors.ts";

/**
 * What every procedure gets: a core context acting as the key's user, the key and its scopes, the
 * serialisers, the configured domain verbs, webhook target rules and the QR codes. `session`: the
 * dashboard session the request came with (cookie), or null for a bearer key (docs/adr/0028-dashboard.md).
 * `beginPasswordTry`: counts a guess of an account's password by this request (a `current_password`),
 * like a sign-in (CONTRACT §15); a thrown 429 when refused.
 */
export type TrpcContext = {
  core: Ctx;
  keyId: number;
  scopes: readonly Scope[];
  json: Serializers;
  log: FastifyBaseLogger;
  domains: DomainVerbs;
  webhookOptions: WebhookTargetOptions;
  qr: QrCache;
  /** `isKeyOpened`: the session was opened with an API key, so it stays in the key's workspace (CONTRACT §24); `isSso`: opened through single sign-on. */
  session: { id: number; csrfToken: string; isKeyOpened: boolean; isSso: boolean } | null;
  beginPasswordTry(email: string): Promise<PasswordTry>;
  /** Mails workspace invitations (SMTP_URL), and the service's own address their links start with. */
  mailer: Mailer;
  publicUrl: string;
  /** Whether single sign-on is configured (OIDC_*): without it, no workspace may require it. */
  isSsoConfigured: boolean;
};

/**
 * The router's own context type is a handle that names nothing of the server: the router's type is
 * what `@shortener/client` publishes, and it must not drag the database's or Fastify's types along
 * (docs/adr/0022-builds-and-operations.md). A middleware hands the procedures the real context.
 */
export type TrpcRequestHandle = { readonly request: object };

const contexts = new WeakMap<object, TrpcContext>();

/** The handle of one request's context (createContext in plugin.ts). */
export function contextHandle(context: TrpcContext): TrpcRequestHandle {
  const request = {};
  contexts.set(request, context);
  return { request };
}

/**
 * What a procedure declares: the scope a key needs to call it (CONTRACT §17, docs/adr/0027-scoped-api-keys.md)
 * and the role the caller needs in the workspace they act in (CONTRACT §24, docs/adr/0044-workspaces.md).
 */
export type ProcedureMeta = { scope: Scope; role: RouteRole };

/** No data transformer: plain JSON, timestamps as strings (CONTRACT §11). No stacks, ever. */
const t = initTRPC.context<TrpcRequestHandle>().meta<ProcedureMeta>().create({ isDev: false, errorFormatter: formatTrpcError });

/** The one place errors are mapped: CoreError → TRPCError by the table of errors.ts, no per-procedure try/catch. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTrpcError(result.error);
  return result;
});

/** The request's full context, for the procedures. */
const withContext = t.middleware(async ({ ctx, next }) => {
  const context = contexts.get(ctx.request);
  if (!context) throw new Error("tRPC context missing");
  return next({ ctx: context });
});

/** A NUL in any string of the input: a validation error naming the field (CONTRACT §15), before any parser. */
const refuseNul = t.middleware(async ({ getRawInput, next }) => {
  rejectNul([["", await getRawInput()]]);
  return next();
});

/** FORBIDDEN with REST's 403 as its cause: the message is ours, and the slug `forbidden`. */
const forbidden = (message: string) => new TRPCError({ code: "FORBIDDEN", message, cause: new HttpError(403, "forbidden", message) });

/**
 * The key's scope and the caller's role against the ones the procedure declares: FORBIDDEN without
 * them. A procedure that declares no scope or no role is refused to every caller (no procedure is open
 * by omission).
 */
const checkScope = t.middleware(async ({ ctx, meta, next }) => {
  const context = contexts.get(ctx.request);
  const scope = meta?.scope;
  if (!scope) throw forbidden("This procedure declares no scope.");
  if (!meta.role) throw forbidden("This procedure declares no role.");
  // A session's scopes are those of the key that opened it (docs/adr/0033-session-bounds.md).
  if (!context || !hasScope(context.scopes, scope)) throw forbidden(`This ${context?.session ? "session" : "API key"} does not have the ${scope} scope.`);
  // The role in the workspace the key or session acts in (CONTRACT §24); REST's 403 as the cause.
  assertRole(context.core.actor, meta.role);
  return next();
});

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;
const authenticated = t.procedure.use(mapErrors).use(checkScope).use(refuseNul).use(withContext);

/**
 * A procedure that needs `scope` (CONTRACT §17) and, in the workspace the caller acts in, at least
 * `role` (CONTRACT §24; `instance-admin`: core checks the instance's administrators). Every procedure is
 * authenticated (the context is only created for a live key, plugin.ts) and declares both here, where it
 * is defined: the one place, the tRPC half of the permission table (REST's is `resource()`).
 */
export function scoped(scope: Scope, role: RouteRole) {
  return authenticated.meta({ scope, role });
}
