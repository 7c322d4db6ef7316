import type { FastifyInstance } from "fastify";
import { resource } from "../http/routes.ts";
import { getOpenApiDocument } from "./document.ts";

/** `GET /api/v1/openapi.json`: like every /api/v1 route, it takes an API key and counts against its limit. */
export function openApiRoutes(app: FastifyInstance): void {
  resource(app, "/openapi.json", { GET: async (_request, reply) => reply.code(200).send(getOpenApiDocument()) });
}
