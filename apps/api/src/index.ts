export { createApi, isApiPath, registeredRoutes, scopeOfRoutes, type RegisteredRoute } from "./app.ts";
export { DEFAULT_API_CONFIG, type ApiConfig, type ApiDeps, type ApiRequestRecord } from "./deps.ts";
export { ERROR_TABLE, HttpError, toErrorResponse } from "./errors.ts";
export { decodeForm } from "./http/form.ts";
export { getOpenApiDocument } from "./openapi/document.ts";
export { createEventData } from "./serialize/events.ts";
export type { AppRouter } from "./trpc/router.ts";
export type { ErrorData as TrpcErrorData } from "./trpc/errors.ts";
