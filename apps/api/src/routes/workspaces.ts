import type { FastifyInstance } from "fastify";
import {
  acceptInvitation,
  AcceptInvitationInput,
  changeMemberRole,
  ChangeMemberRoleInput,
  CreateInvitationInput,
  createWorkspace,
  CreateWorkspaceInput,
  deleteWorkspace,
  getWorkspace,
  listInvitations,
  listMembers,
  listWorkspaces,
  ListWorkspaceItemsInput,
  removeMember,
  revokeInvitation,
  updateWorkspace,
  UpdateWorkspaceInput,
} from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { ctxOf } from "../http/auth.ts";
import { sendDeleted, sendList, sendOne } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import { inviteAndMail } from "../mail/invite.ts";
import type { Mailer } from "../mail/mailer.ts";
import { invitationJson, memberJson, workspaceJson } from "../serialize/workspaces.ts";

/**
 * CONTRACT §24: workspaces, their members and invitations. Every `/workspaces/{id}…` route acts on the
 * workspace the caller acts in (the key's, or the one a dashboard session switched to): any other id is
 * a 404 (docs/adr/0044-workspaces.md). The roles each route needs are declared here, next to the scope;
 * core refines them (only an owner makes or changes an owner; an invitation's role is at most the
 * inviter's; anyone may leave, but not the last owner).
 */
export function workspaceRoutes(app: FastifyInstance, deps: ApiDeps, mailer: Mailer): void {
  resource(app, "/workspaces", "account", "viewer", {
    GET: async (request, reply) => sendList(request, reply, await listWorkspaces({ ctx: ctxOf(deps, request), input: formInput(ListWorkspaceItemsInput, request.query) }), workspaceJson),
    POST: async (request, reply) => sendOne(reply, workspaceJson(await createWorkspace({ ctx: ctxOf(deps, request), input: formInput(CreateWorkspaceInput, request.body) })), 201),
  });

  // Deleting the workspace is the owner's alone.
  resource(
    app,
    "/workspaces/:id",
    "account",
    { read: "viewer", write: "admin", DELETE: "owner" },
    {
      GET: async (request, reply) => sendOne(reply, workspaceJson(await getWorkspace({ ctx: ctxOf(deps, request), id: idParam(request.params) }))),
      PATCH: async (request, reply) =>
        sendOne(
          reply,
          workspaceJson(
            await updateWorkspace({ ctx: ctxOf(deps, request), id: idParam(request.params), input: formInput(UpdateWorkspaceInput, request.body), isSsoConfigured: deps.config.oidc !== undefined }),
          ),
        ),
      DELETE: async (request, reply) => sendDeleted(reply, (await deleteWorkspace({ ctx: ctxOf(deps, request), id: idParam(request.params) })).id, "workspace"),
    },
  );

  // Every member sees who else is; changing or removing one is the admins' (an owner: the owners').
  resource(app, "/workspaces/:id/members", "account", "viewer", {
    GET: async (request, reply) =>
      sendList(request, reply, await listMembers({ ctx: ctxOf(deps, request), workspaceId: idParam(request.params), input: formInput(ListWorkspaceItemsInput, request.query) }), memberJson),
  });
  resource(app, "/workspaces/:id/members/:user_id", "account", "admin", {
    PATCH: async (request, reply) => {
      const input = formInput(ChangeMemberRoleInput, request.body);
      return sendOne(reply, memberJson(await changeMemberRole({ ctx: ctxOf(deps, request), workspaceId: idParam(request.params), userId: idParam(request.params, "user_id"), input })));
    },
    DELETE: async (request, reply) =>
      sendDeleted(reply, (await removeMember({ ctx: ctxOf(deps, request), workspaceId: idParam(request.params), userId: idParam(request.params, "user_id") })).id, "member"),
  });
  // Leaving needs no more than being a member.
  resource(app, "/workspaces/:id/leave", "account", "viewer", {
    POST: async (request, reply) => {
      const ctx = ctxOf(deps, request);
      return sendDeleted(reply, (await removeMember({ ctx, workspaceId: idParam(request.params), userId: ctx.actor.userId })).id, "member");
    },
  });

  resource(app, "/workspaces/:id/invitations", "account", "admin", {
    GET: async (request, reply) =>
      sendList(request, reply, await listInvitations({ ctx: ctxOf(deps, request), workspaceId: idParam(request.params), input: formInput(ListWorkspaceItemsInput, request.query) }), (invitation) =>
        invitationJson(invitation, deps.now()),
      ),
    POST: async (request, reply) =>
      sendOne(reply, await inviteAndMail(ctxOf(deps, request), idParam(request.params), formInput(CreateInvitationInput, request.body), mailer, deps.config.publicUrl), 201),
  });
  resource(app, "/workspaces/:id/invitations/:invitation_id", "account", "admin", {
    DELETE: async (request, reply) =>
      sendDeleted(reply, (await revokeInvitation({ ctx: ctxOf(deps, request), workspaceId: idParam(request.params), id: idParam(request.params, "invitation_id") })).id, "invitation"),
  });

  // The signed-in caller (any role where they act) accepts an invitation into another workspace.
  resource(app, "/invitations/accept", "account", "viewer", {
    POST: async (request, reply) => sendOne(reply, workspaceJson(await acceptInvitation({ ctx: ctxOf(deps, request), input: formInput(AcceptInvitationInput, request.body) }))),
  });
}
