import type { FastifyInstance } from "fastify";
import {
  createApiKey,
  CreateApiKeyInput,
  createUser,
  CreateUserInput,
  deleteApiKey,
  deleteUser,
  getAccount,
  getCurrentWorkspace,
  listApiKeys,
  ListApiKeysInput,
  listUsers,
  ListUsersInput,
  rotateApiKey,
} from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { sendDeleted, sendList, sendOne } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import { apiKeyJson, createdApiKeyJson } from "../serialize/api-keys.ts";
import { toUserJson } from "../serialize/users.ts";
import { workspaceJson } from "../serialize/workspaces.ts";

/**
 * CONTRACT §9: the caller's account and key, and the admin's user management; §17: named, scoped keys.
 * All of it needs the `account` scope (user management also the admin role, checked by core).
 */
export function accountRoutes(app: FastifyInstance, deps: ApiDeps): void {
  resource(app, "/account", "account", "viewer", {
    GET: async (request, reply) => {
      const ctx = ctxOf(deps, request);
      const [user, workspace] = await Promise.all([getAccount({ ctx }), getCurrentWorkspace({ ctx })]);
      // phpShort's fields, then the workspace the key acts in (CONTRACT §24).
      return sendOne(reply, { ...toUserJson(user), workspace: workspaceJson(workspace) });
    },
  });

  resource(app, "/account/api-key", "account", "viewer", {
    POST: async (request, reply) => {
      const keyId = request.auth?.keyId ?? 0;
      const { apiKey } = await rotateApiKey({ ctx: ctxOf(deps, request), keyId });
      return sendOne(reply, { api_key: apiKey }, 201);
    },
  });

  resource(app, "/account/api-keys", "account", "admin", {
    GET: async (request, reply) => sendList(request, reply, await listApiKeys({ ctx: ctxOf(deps, request), input: formInput(ListApiKeysInput, request.query) }), apiKeyJson),
    POST: async (request, reply) => {
      const { apiKey, secret } = await createApiKey({ ctx: ctxOf(deps, request), input: formInput(CreateApiKeyInput, request.body) });
      return sendOne(reply, createdApiKeyJson(apiKey, secret), 201);
    },
  });

  resource(app, "/account/api-keys/:id", "account", "admin", {
    DELETE: async (request, reply) => sendDeleted(reply, (await deleteApiKey({ ctx: ctxOf(deps, request), id: idParam(request.params) })).id, "api_key"),
  });

  resource(app, "/users", "account", "instance-admin", {
    GET: async (request, reply) => sendList(request, reply, await listUsers({ ctx: ctxOf(deps, request), input: formInput(ListUsersInput, request.query) }), toUserJson),
    POST: async (request, reply) => {
      const { user, apiKey } = await createUser({ ctx: ctxOf(deps, request), input: formInput(CreateUserInput, request.body) });
      return sendOne(reply, { ...toUserJson(user), api_key: apiKey }, 201);
    },
  });

  resource(app, "/users/:id", "account", "instance-admin", {
    DELETE: async (request, reply) => {
      const { id } = await deleteUser({ ctx: ctxOf(deps, request), input: { id: idParam(request.params) } });
      return sendDeleted(reply, id, "user");
    },
  });
}
