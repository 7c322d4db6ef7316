import { initTRPC } from "@trpc/server";
import type { FastifyBaseLogger } from "fastify";
import type { Ctx, QrCache, WebhookTargetOptions } from "@shortener/core";
import type { DomainVerbs } from "../domain-policy.ts";
import type { Serializers } from "../serialize/resources.ts";
import { rejectNul } from "../http/nul.ts";
import { formatTrpcError, toTrpcError } from "./errors.ts";

/**
 * What every procedure gets: a core context acting as the key's user, the key, the serialisers, the
 * configured domain verbs, webhook target rules and the QR codes. `session`: the dashboard session the
 * request came with (cookie), or null for a bearer key (docs/adr/0028-dashboard.md).
 */
export type TrpcContext = {
  core: Ctx;
  keyId: number;
  json: Serializers;
  log: FastifyBaseLogger;
  domains: DomainVerbs;
  webhookOptions: WebhookTargetOptions;
  qr: QrCache;
  session: { id: number; csrfToken: string } | null;
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

/** No data transformer: plain JSON, timestamps as strings (CONTRACT §11). No stacks, ever. */
const t = initTRPC.context<TrpcRequestHandle>().create({ isDev: false, errorFormatter: formatTrpcError });

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

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;
/** Every procedure is authenticated: the context is only created for a live key (context.ts). */
export const procedure = t.procedure.use(mapErrors).use(refuseNul).use(withContext);
