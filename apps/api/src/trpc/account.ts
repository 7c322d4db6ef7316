import {
  createApiKey,
  CreateApiKeyInput,
  createUser,
  CreateUserInput,
  deleteApiKey,
  deleteUser,
  getAccount,
  getCurrentWorkspace,
  IdInput,
  listApiKeys,
  ListApiKeysInput,
  listUsers,
  ListUsersInput,
  rotateAccountKey,
  rotateApiKey,
} from "@shortener/core";
import { apiKeyJson, createdApiKeyJson } from "../serialize/api-keys.ts";
import { toUserJson } from "../serialize/users.ts";
import { workspaceJson } from "../serialize/workspaces.ts";
import { router, scoped } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/** CONTRACT §17 on tRPC: the caller's named, scoped keys; the secret only in `create`'s answer. */
const apiKeysRouter = router({
  list: scoped("account", "admin")
    .input(ListApiKeysInput)
    .query(async ({ ctx, input }) => toListJson(await listApiKeys({ ctx: ctx.core, input }), apiKeyJson)),
  create: scoped("account", "admin")
    .input(CreateApiKeyInput)
    .mutation(async ({ ctx, input }) => {
      const { apiKey, secret } = await createApiKey({ ctx: ctx.core, input });
      return createdApiKeyJson(apiKey, secret);
    }),
  delete: scoped("account", "admin")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteApiKey({ ctx: ctx.core, id: input.id }), "api_key")),
});

/** CONTRACT §9 on tRPC: the caller's account and key, and the named keys of §17; all with the `account` scope. */
export const accountRouter = router({
  /** The account, and the workspace the caller acts in (CONTRACT §24). */
  get: scoped("account", "viewer").query(async ({ ctx }) => {
    const [user, workspace] = await Promise.all([getAccount({ ctx: ctx.core }), getCurrentWorkspace({ ctx: ctx.core })]);
    return { ...toUserJson(user), workspace: workspaceJson(workspace) };
  }),
  /**
   * A new key for the caller, shown once; the key of this request stops working at once. From a
   * dashboard session (no key used): a new key of §9 for the account, if the session has full rights.
   */
  rotateKey: scoped("account", "viewer").mutation(async ({ ctx }) => {
    const { apiKey } = ctx.session ? await rotateAccountKey({ ctx: ctx.core, keepSessionId: ctx.session.id }) : await rotateApiKey({ ctx: ctx.core, keyId: ctx.keyId });
    return { api_key: apiKey };
  }),
  apiKeys: apiKeysRouter,
});

/** Admin only (FORBIDDEN otherwise): users and their first key. The `account` scope, as on REST. */
export const usersRouter = router({
  list: scoped("account", "instance-admin")
    .input(ListUsersInput)
    .query(async ({ ctx, input }) => toListJson(await listUsers({ ctx: ctx.core, input }), toUserJson)),
  create: scoped("account", "instance-admin")
    .input(CreateUserInput)
    .mutation(async ({ ctx, input }) => {
      const { user, apiKey } = await createUser({ ctx: ctx.core, input });
      return { ...toUserJson(user), api_key: apiKey };
    }),
  delete: scoped("account", "instance-admin")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteUser({ ctx: ctx.core, input: { id: input.id } }), "user")),
});
