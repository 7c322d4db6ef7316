import { TRPCError, type TRPCDefaultErrorShape as DefaultErrorShape, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { z } from "zod";
import { CoreError, toFieldErrors, ValidationError, type FieldErrors } from "@shortener/core";
import { isConnectionError } from "@shortener/db";
import { BAD_REQUEST_MESSAGE, ERROR_TABLE, HTTP_ERROR_TRPC, HttpError, NOT_FOUND_MESSAGE, SERVER_ERROR_MESSAGE, SERVICE_UNAVAILABLE_MESSAGE } from "../errors.ts";

/**
 * Whatever a procedure, its input parser or the context threw → the TRPCError the client gets, by the
 * one table of `errors.ts`. A lost database is SERVICE_UNAVAILABLE (HTTP 503, CONTRACT §16). Unknown errors become INTERNAL_SERVER_ERROR "Server Error." and keep the
 * original only as `cause`, for the log (`onError` in plugin.ts).
 */
export function toTrpcError(thrown: unknown): TRPCError {
  const cause = thrown instanceof TRPCError && thrown.cause ? thrown.cause : thrown;
  if (cause instanceof CoreError && cause.code !== "INTERNAL") {
    const message = cause.code === "NOT_FOUND" ? NOT_FOUND_MESSAGE : cause.message;
    return new TRPCError({ code: ERROR_TABLE[cause.code].trpc, message, cause });
  }
  if (cause instanceof HttpError) {
    return new TRPCError({ code: HTTP_ERROR_TRPC[cause.status] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  if (thrown instanceof TRPCError && thrown.code !== "INTERNAL_SERVER_ERROR") return thrown;
  if (isConnectionError(cause)) return new TRPCError({ code: "SERVICE_UNAVAILABLE", message: SERVICE_UNAVAILABLE_MESSAGE, cause });
  return new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: SERVER_ERROR_MESSAGE, cause });
}

/** REST's `code` slug for the errors tRPC raises itself (unknown procedure, wrong method, bad JSON). */
const TRPC_SLUGS: Partial<Record<TRPC_ERROR_CODE_KEY, string>> = {
  PARSE_ERROR: "bad_request",
  BAD_REQUEST: "bad_request",
  UNAUTHORIZED: "unauthenticated",
  NOT_FOUND: "not_found",
  METHOD_NOT_SUPPORTED: "method_not_allowed",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  TOO_MANY_REQUESTS: "rate_limited",
  SERVICE_UNAVAILABLE: "service_unavailable",
  INTERNAL_SERVER_ERROR: "internal_error",
};

function slugOf(error: TRPCError): string {
  const cause = error.cause;
  if (cause instanceof CoreError) return cause.reason ?? ERROR_TABLE[cause.code].slug;
  if (cause instanceof HttpError) return cause.code;
  if (cause instanceof z.ZodError) return ERROR_TABLE.VALIDATION.slug;
  return TRPC_SLUGS[error.code] ?? "bad_request";
}

/** What `error.data` adds to tRPC's own fields (`code`, `httpStatus`, `path`). */
export type ErrorData = {
  /** REST's `code` for the same error (CONTRACT §2), e.g. `validation_failed`, `not_found`, `rate_limited`. */
  slug: string;
  /** On a validation error: REST's 422 `message`, `{ field: [sentence, …] }` (nested fields joined by dots). */
  fieldErrors: FieldErrors | null;
};

/**
 * The sentence of an error whose message is not ours: tRPC's own (they quote the path, the method, or
 * the JSON parser's words, which quote the input) or a runtime's ("Maximum call stack size exceeded").
 */
const INVALID_INPUT_MESSAGE = "The input is not valid JSON.";
const FIXED_MESSAGES: Partial<Record<TRPC_ERROR_CODE_KEY, string>> = {
  PARSE_ERROR: INVALID_INPUT_MESSAGE,
  NOT_FOUND: NOT_FOUND_MESSAGE,
  METHOD_NOT_SUPPORTED: "This procedure is not called with this method: queries take GET, mutations POST.",
  SERVICE_UNAVAILABLE: SERVICE_UNAVAILABLE_MESSAGE,
};

/**
 * The message a client sees: only sentences we wrote. Field errors give their first sentence; our own
 * errors (core's, the HTTP layer's) their message; anything else a fixed sentence by its code — a
 * failed parse of the input (the JSON parser's error as the cause) "not valid JSON" —, never a stack,
 * an internal text, or the input echoed.
 */
function messageOf(error: TRPCError, fieldErrors: FieldErrors | null): string {
  if (error.code === "INTERNAL_SERVER_ERROR") return SERVER_ERROR_MESSAGE;
  const firstSentence = fieldErrors ? Object.values(fieldErrors)[0]?.[0] : undefined;
  if (firstSentence) return firstSentence;
  const cause = error.cause;
  if ((cause instanceof CoreError && cause.code !== "INTERNAL") || cause instanceof HttpError) return error.message;
  if (error.code === "BAD_REQUEST" && cause instanceof Error) return INVALID_INPUT_MESSAGE;
  return FIXED_MESSAGES[error.code] ?? BAD_REQUEST_MESSAGE;
}

/** The error formatter: tRPC's shape, plus `data.slug` and `data.fieldErrors`; never a stack or a cause. */
export function formatTrpcError({ shape, error }: { shape: DefaultErrorShape; error: TRPCError }) {
  const cause = error.cause;
  const fieldErrors = cause instanceof ValidationError ? cause.fields : cause instanceof z.ZodError ? toFieldErrors(cause) : null;
  const message = messageOf(error, fieldErrors);
  const data: DefaultErrorShape["data"] & ErrorData = { ...shape.data, slug: slugOf(error), fieldErrors };
  return { ...shape, message, data };
}
