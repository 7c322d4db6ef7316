import { createUser, CreateUserInput, deleteUser, getAccount, IdInput, listUsers, ListUsersInput, rotateApiKey } from "@shortener/core";
import { toUserJson } from "../serialize/users.ts";
import { procedure, router } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/** CONTRACT §9 on tRPC: the caller's account and key. */
export const accountRouter = router({
  get: procedure.query(async ({ ctx }) => toUserJson(await getAccount({ ctx: ctx.core }))),
  /** A new key for the caller, shown once; the key of this request stops working at once. */
  rotateKey: procedure.mutation(async ({ ctx }) => ({ api_key: (await rotateApiKey({ ctx: ctx.core, keyId: ctx.keyId })).apiKey })),
});

/** Admin only (FORBIDDEN otherwise): users and their first key. */
export const usersRouter = router({
  list: procedure.input(ListUsersInput).query(async ({ ctx, input }) => toListJson(await listUsers({ ctx: ctx.core, input }), toUserJson)),
  create: procedure.input(CreateUserInput).mutation(async ({ ctx, input }) => {
    const { user, apiKey } = await createUser({ ctx: ctx.core, input });
    return { ...toUserJson(user), api_key: apiKey };
  }),
  delete: procedure.input(IdInput).mutation(async ({ ctx, input }) => toDeletedJson(await deleteUser({ ctx: ctx.core, input: { id: input.id } }), "user")),
});
