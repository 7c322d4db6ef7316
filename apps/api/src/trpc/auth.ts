import { deleteUserSession, deleteUserSessions, getAccount, hasPassword, IdInput, listUserSessions, setPassword, SetPasswordInput, ValidationError } from "@shortener/core";
import { sessionJson } from "../serialize/sessions.ts";
import { toUserJson } from "../serialize/users.ts";
import { router, scoped } from "./init.ts";
import { toDeletedJson } from "./lists.ts";

/**
 * The dashboard's view of who is signed in (CONTRACT §19). Signing in and out of one session are REST
 * (`/app/session`: they set and clear the cookie); these work with a session or a key alike.
 */
export const authRouter = router({
  /**
   * The account, whether it has a password, whether the session came through single sign-on, and the
   * session's CSRF token (null with a bearer key). `can_switch_workspace`: whether `workspaces.switch`
   * can move this caller (a dashboard session opened with a password or SSO; not a bearer key nor a
   * session opened with one, CONTRACT §24).
   */
  me: scoped("account", "viewer").query(async ({ ctx }) => {
    const [user, isPasswordSet] = await Promise.all([getAccount({ ctx: ctx.core }), hasPassword({ ctx: ctx.core })]);
    // The scopes the caller holds, so the dashboard offers only what a session opened with a key may do.
    const canSwitchWorkspace = ctx.session !== null && !ctx.session.isKeyOpened;
    return {
      ...toUserJson(user),
      has_password: isPasswordSet,
      is_sso: ctx.session?.isSso ?? false,
      csrf_token: ctx.session?.csrfToken ?? null,
      scopes: [...ctx.scopes],
      can_switch_workspace: canSwitchWorkspace,
    };
  }),
  /**
   * Sets the password (the current one is needed once one is set). A `current_password` is a guess at
   * the account's password, counted before it is checked like a sign-in (CONTRACT §15): a stolen session
   * gets no more guesses than a stranger. A wrong one stays counted; anything else takes it back. Full
   * rights only; the user's other sessions end.
   */
  setPassword: scoped("account", "viewer")
    .input(SetPasswordInput)
    .mutation(async ({ ctx, input }) => {
      if (!input.current_password) {
        await setPassword({ ctx: ctx.core, input, keepSessionId: ctx.session?.id ?? null });
        return { has_password: true };
      }
      const { email } = await getAccount({ ctx: ctx.core });
      const guess = await ctx.beginPasswordTry(email);
      try {
        await setPassword({ ctx: ctx.core, input, keepSessionId: ctx.session?.id ?? null });
      } catch (error) {
        if (!(error instanceof ValidationError)) await guess.succeeded();
        throw error;
      }
      await guess.succeeded();
      return { has_password: true };
    }),
  /** The user's signed-in devices: live sessions, the most recently used first; `current` marks this one. */
  sessions: scoped("account", "viewer").query(async ({ ctx }) => {
    const rows = await listUserSessions(ctx.core, ctx.core.actor.userId);
    return rows.map((row) => sessionJson(row, ctx.session?.id));
  }),
  /** Signs one of the user's sessions out (another device, or this one); another user's is NOT_FOUND. */
  revokeSession: scoped("account", "viewer")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteUserSession(ctx.core, ctx.core.actor.userId, input.id), "session")),
  /** Revokes every session of the user, this one included. */
  logoutEverywhere: scoped("account", "viewer").mutation(async ({ ctx }) => ({ revoked: await deleteUserSessions(ctx.core, ctx.core.actor.userId) })),
});
