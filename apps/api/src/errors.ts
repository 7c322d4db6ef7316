import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { CoreError, ValidationError, type CoreErrorCode } from "@shortener/core";
import { isConnectionError } from "@shortener/db";

/** The one table both transports use: a core error code → HTTP status, tRPC code and REST `code` slug. */
export const ERROR_TABLE: Record<CoreErrorCode, { http: number; trpc: TRPC_ERROR_CODE_KEY; slug: string }> = {
  NOT_FOUND: { http: 404, trpc: "NOT_FOUND", slug: "not_found" },
  CONFLICT: { http: 409, trpc: "CONFLICT", slug: "conflict" },
  VALIDATION: { http: 422, trpc: "BAD_REQUEST", slug: "validation_failed" },
  FORBIDDEN: { http: 403, trpc: "FORBIDDEN", slug: "forbidden" },
  LIMIT_EXCEEDED: { http: 413, trpc: "PAYLOAD_TOO_LARGE", slug: "payload_too_large" },
  INTERNAL: { http: 500, trpc: "INTERNAL_SERVER_ERROR", slug: "internal_error" },
};

/** The REST error body of CONTRACT §2: `message` (an object of field errors on 422), `code`, `status`. */
export type ErrorBody = { message: string | Record<string, string[]>; code: string; status: number };

/** An error the HTTP layer raises itself (authentication, rate limits, bad bodies). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/**
 * The HTTP layer's own errors (never core's) on tRPC: an `HttpError` status → tRPC code. Its REST `code`
 * slug travels as is. Only 401 and 429 reach tRPC in practice (authentication and limits).
 */
export const HTTP_ERROR_TRPC: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

export const NOT_FOUND_MESSAGE = "Resource not found.";
export const SERVER_ERROR_MESSAGE = "Server Error.";
export const SERVICE_UNAVAILABLE_MESSAGE = "Service Unavailable.";
export const INVALID_JSON_MESSAGE = "The request body is not valid JSON.";
/** A client error with no sentence of its own (what the framework or tRPC said is never passed on). */
export const BAD_REQUEST_MESSAGE = "The request could not be understood.";
/** How long a client is asked to wait (`Retry-After`, seconds) while the database is unreachable. */
export const RETRY_AFTER_SECONDS = 5;
/** CONTRACT §16: the database cannot be reached; the request can be tried again in a moment. */
export const serviceUnavailable = () => new HttpError(503, "service_unavailable", SERVICE_UNAVAILABLE_MESSAGE, { "retry-after": String(RETRY_AFTER_SECONDS) });
export const unauthenticated = () => new HttpError(401, "unauthenticated", "Unauthenticated.");
export const notFound = () => new HttpError(404, "not_found", NOT_FOUND_MESSAGE);

/** Maps Fastify's own client errors (body too large, bad media type, bad JSON) to our codes. */
const FASTIFY_STATUS_CODES: Record<number, string> = {
  400: "bad_request",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "The request body is larger than 1 MiB.",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "The content type is not supported: send application/x-www-form-urlencoded or application/json.",
  FST_ERR_CTP_INVALID_JSON_BODY: INVALID_JSON_MESSAGE,
  FST_ERR_CTP_EMPTY_JSON_BODY: "The request body is empty but its content type is application/json.",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "The Content-Length header does not match the body.",
};

/**
 * Any thrown value → status and REST body. A lost database (`isConnectionError`, whatever wraps it)
 * is a 503 with `Retry-After` (CONTRACT §16); other unknown errors become a generic 500 (the caller
 * logs the cause).
 */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody; headers: Record<string, string>; isUnexpected: boolean } {
  if (error instanceof HttpError) {
    return { status: error.status, body: { message: error.message, code: error.code, status: error.status }, headers: error.headers, isUnexpected: false };
  }
  if (error instanceof CoreError && error.code !== "INTERNAL") {
    const entry = ERROR_TABLE[error.code];
    const message = error instanceof ValidationError ? error.fields : error.code === "NOT_FOUND" ? NOT_FOUND_MESSAGE : error.message;
    return { status: entry.http, body: { message, code: error.reason ?? entry.slug, status: entry.http }, headers: {}, isUnexpected: false };
  }
  const e = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    const status = e.statusCode;
    const code = FASTIFY_STATUS_CODES[status] ?? "bad_request";
    const message = (typeof e.code === "string" && FASTIFY_MESSAGES[e.code]) || BAD_REQUEST_MESSAGE;
    return { status, body: { message, code, status }, headers: {}, isUnexpected: false };
  }
  if (isConnectionError(error)) return toErrorResponse(serviceUnavailable());
  return { status: 500, body: { message: SERVER_ERROR_MESSAGE, code: "internal_error", status: 500 }, headers: {}, isUnexpected: true };
}
