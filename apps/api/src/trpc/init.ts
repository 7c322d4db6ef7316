import { initTRPC } from "@trpc/server";
import type { FastifyBaseLogger } from "fastify";
import type { Ctx } from "@shortener/core";
import type { Serializers } from "../serialize/resources.ts";
import { rejectNul } from "../http/nul.ts";
import { formatTrpcError, toTrpcError } from "./errors.ts";

/** What every procedure gets: a core context acting as the key's user, the key, and the serialisers. */
export type TrpcContext = { core: Ctx; keyId: number; json: Serializers; log: FastifyBaseLogger };

/** No data transformer: plain JSON, timestamps as strings (CONTRACT §11). No stacks, ever. */
const t = initTRPC.context<TrpcContext>().create({ isDev: false, errorFormatter: formatTrpcError });

/** The one place errors are mapped: CoreError → TRPCError by the table of errors.ts, no per-procedure try/catch. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTrpcError(result.error);
  return result;
});

/** A NUL in any string of the input: a validation error naming the field (CONTRACT §15), before any parser. */
const refuseNul = t.middleware(async ({ getRawInput, next }) => {
  rejectNul([["", await getRawInput()]]);
  return next();
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
/** Every procedure is authenticated: the context is only created for a live key (context.ts). */
export const procedure = t.procedure.use(mapErrors).use(refuseNul);
