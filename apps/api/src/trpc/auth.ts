import { deleteUserSessions, getAccount, hasPassword, setPassword, SetPasswordInput } from "@shortener/core";
import { toUserJson } from "../serialize/users.ts";
import { router, scoped } from "./init.ts";

/**
 * The dashboard's view of who is signed in (CONTRACT §19). Signing in and out of one session are REST
 * (`/app/session`: they set and clear the cookie); these work with a session or a key alike.
 */
export const authRouter = router({
  /** The account, whether it has a password, and the session's CSRF token (null with a bearer key). */
  me: scoped("account").query(async ({ ctx }) => {
    const [user, isPasswordSet] = await Promise.all([getAccount({ ctx: ctx.core }), hasPassword({ ctx: ctx.core })]);
    return { ...toUserJson(user), has_password: isPasswordSet, csrf_token: ctx.session?.csrfToken ?? null };
  }),
  /** Sets the password (the current one is needed once one is set). */
  setPassword: scoped("account")
    .input(SetPasswordInput)
    .mutation(async ({ ctx, input }) => {
      await setPassword({ ctx: ctx.core, input });
      return { has_password: true };
    }),
  /** Revokes every session of the user, this one included. */
  logoutEverywhere: scoped("account").mutation(async ({ ctx }) => ({ revoked: await deleteUserSessions(ctx.core, ctx.core.actor.userId) })),
});
