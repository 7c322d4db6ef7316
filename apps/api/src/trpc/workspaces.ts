import { z } from "zod";
import {
  acceptInvitation,
  AcceptInvitationInput,
  changeMemberRole,
  ChangeMemberRoleInput,
  CreateInvitationInput,
  createWorkspace,
  CreateWorkspaceInput,
  deleteWorkspace,
  getCurrentWorkspace,
  getWorkspace,
  IdInput,
  listInvitations,
  listMembers,
  listWorkspaces,
  ListWorkspaceItemsInput,
  removeMember,
  revokeInvitation,
  switchWorkspace,
  updateWorkspace,
  UpdateWorkspaceInput,
} from "@shortener/core";
import { inviteAndMail } from "../mail/invite.ts";
import { invitationJson, memberJson, workspaceJson } from "../serialize/workspaces.ts";
import { router, scoped } from "./init.ts";
import { toDeletedJson, toListJson } from "./lists.ts";

/** Ids as typed callers send them: a JSON number, a positive 32-bit integer (core's `IdInput` rule). */
const id = IdInput.shape.id;
const WorkspaceIdInput = z.object({ workspace_id: id });
const MemberInput = z.object({ workspace_id: id, user_id: id });

/**
 * The members of a workspace (CONTRACT §24): every member lists them; admins change roles and remove
 * (an owner: owners only; making one hands the workspace over); anyone leaves, but not the last owner.
 */
const membersRouter = router({
  list: scoped("account", "viewer")
    .input(WorkspaceIdInput.extend(ListWorkspaceItemsInput.shape))
    .query(async ({ ctx, input }) => toListJson(await listMembers({ ctx: ctx.core, workspaceId: input.workspace_id, input }), memberJson)),
  update: scoped("account", "admin")
    .input(MemberInput)
    .input(ChangeMemberRoleInput)
    .mutation(async ({ ctx, input }) => memberJson(await changeMemberRole({ ctx: ctx.core, workspaceId: input.workspace_id, userId: input.user_id, input }))),
  remove: scoped("account", "admin")
    .input(MemberInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await removeMember({ ctx: ctx.core, workspaceId: input.workspace_id, userId: input.user_id }), "member")),
  leave: scoped("account", "viewer")
    .input(WorkspaceIdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await removeMember({ ctx: ctx.core, workspaceId: input.workspace_id, userId: ctx.core.actor.userId }), "member")),
});

/** Invitations (admins): one-time links, shown once, mailed when SMTP_URL is set; `accept` for any signed-in caller. */
const invitationsRouter = router({
  list: scoped("account", "admin")
    .input(WorkspaceIdInput.extend(ListWorkspaceItemsInput.shape))
    .query(async ({ ctx, input }) => {
      const now = ctx.core.now();
      return toListJson(await listInvitations({ ctx: ctx.core, workspaceId: input.workspace_id, input }), (invitation) => invitationJson(invitation, now));
    }),
  create: scoped("account", "admin")
    .input(WorkspaceIdInput)
    .input(CreateInvitationInput)
    .mutation(async ({ ctx, input }) => inviteAndMail(ctx.core, input.workspace_id, input, ctx.mailer, ctx.publicUrl)),
  revoke: scoped("account", "admin")
    .input(WorkspaceIdInput.extend({ id }))
    .mutation(async ({ ctx, input }) => toDeletedJson(await revokeInvitation({ ctx: ctx.core, workspaceId: input.workspace_id, id: input.id }), "invitation")),
  accept: scoped("account", "viewer")
    .input(AcceptInvitationInput)
    .mutation(async ({ ctx, input }) => workspaceJson(await acceptInvitation({ ctx: ctx.core, input }))),
});

/**
 * `workspaces` (CONTRACT §24, docs/teams.md): the caller's workspaces, the one they act in (`current`),
 * switching a dashboard session to another (`switch`), and the verbs of REST's `/workspaces`. Ids other
 * than the workspace acted in are NOT_FOUND, as on REST.
 */
export const workspacesRouter = router({
  list: scoped("account", "viewer")
    .input(ListWorkspaceItemsInput)
    .query(async ({ ctx, input }) => toListJson(await listWorkspaces({ ctx: ctx.core, input }), workspaceJson)),
  current: scoped("account", "viewer").query(async ({ ctx }) => workspaceJson(await getCurrentWorkspace({ ctx: ctx.core }))),
  /** Switches this dashboard session (a bearer key, or a session opened with one, stays where it is: FORBIDDEN). */
  switch: scoped("account", "viewer")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => workspaceJson(await switchWorkspace({ ctx: ctx.core, sessionId: ctx.session?.id ?? null, id: input.id }))),
  get: scoped("account", "viewer")
    .input(IdInput)
    .query(async ({ ctx, input }) => workspaceJson(await getWorkspace({ ctx: ctx.core, id: input.id }))),
  create: scoped("account", "viewer")
    .input(CreateWorkspaceInput)
    .mutation(async ({ ctx, input }) => workspaceJson(await createWorkspace({ ctx: ctx.core, input }))),
  update: scoped("account", "admin")
    .input(IdInput)
    .input(UpdateWorkspaceInput)
    .mutation(async ({ ctx, input }) => workspaceJson(await updateWorkspace({ ctx: ctx.core, id: input.id, input, isSsoConfigured: ctx.isSsoConfigured }))),
  delete: scoped("account", "owner")
    .input(IdInput)
    .mutation(async ({ ctx, input }) => toDeletedJson(await deleteWorkspace({ ctx: ctx.core, id: input.id }), "workspace")),
  members: membersRouter,
  invitations: invitationsRouter,
});
