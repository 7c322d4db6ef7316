import {
  createApiKey,
  CreateApiKeyInput,
  createUser,
  CreateUserInput,
  deleteApiKey,
  deleteUser,
  getAccount,
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
import { router, scoped } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/** CONTRACT §17 on tRPC: the caller's named, scoped keys; the secret only in `create`'s answer. */
const apiKeysRouter = router({
  list: scoped("account")
    .input(ListApiKeysInput)
    .query(async ({ ctx, input }) => toListJson(await listApiKeys({ ctx: ctx.core, input }), apiKeyJson)),
  create: scoped("account")
    .input(CreateApiKeyInput)
    .mutation(async ({ ctx, input }) => {
      const { apiKey, secret } = await createApiKey({ ctx: ctx.core, input });
      return createdApiKeyJson(apiKey, secret);
    }),
  delete: scoped("account")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteApiKey({ ctx: ctx.core, id: input.id }), "api_key")),
});

/** CONTRACT §9 on tRPC: the caller's account and key, and the named keys of §17; all with the `account` scope. */
export const accountRouter = router({
  get: scoped("account").query(async ({ ctx }) => toUserJson(await getAccount({ ctx: ctx.core }))),
  /**
   * A new key for the caller, shown once; the key of this request stops working at once. From a
   * dashboard session (no key used): a new key of §9 for the account, if the session has full rights.
   */
  rotateKey: scoped("account").mutation(async ({ ctx }) => {
    const { apiKey } = ctx.session ? await rotateAccountKey({ ctx: ctx.core, keepSessionId: ctx.session.id }) : await rotateApiKey({ ctx: ctx.core, keyId: ctx.keyId });
    return { api_key: apiKey };
  }),
  apiKeys: apiKeysRouter,
});

/** Admin only (FORBIDDEN otherwise): users and their first key. The `account` scope, as on REST. */
export const usersRouter = router({
  list: scoped("account")
    .input(ListUsersInput)
    .query(async ({ ctx, input }) => toListJson(await listUsers({ ctx: ctx.core, input }), toUserJson)),
  create: scoped("account")
    .input(CreateUserInput)
    .mutation(async ({ ctx, input }) => {
      const { user, apiKey } = await createUser({ ctx: ctx.core, input });
      return { ...toUserJson(user), api_key: apiKey };
    }),
  delete: scoped("account")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteUser({ ctx: ctx.core, input: { id: input.id } }), "user")),
});
