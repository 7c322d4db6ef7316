import type { Invitation, InvitationPreview, Member, Workspace } from "@shortener/core";

/** A workspace as its member sees it (CONTRACT §24): with their role there. */
export function workspaceJson(workspace: Workspace) {
  return {
    id: workspace.id,
    name: workspace.name,
    personal: workspace.isPersonal,
    require_sso: workspace.requireSso,
    role: workspace.role,
    created_at: workspace.createdAt.toISOString(),
    updated_at: workspace.updatedAt.toISOString(),
  };
}

/** A member: `id` is the user's id (the one `/members/{user_id}` takes). */
export function memberJson(member: Member) {
  return { id: member.userId, name: member.name, email: member.email, role: member.role, joined_at: member.joinedAt.toISOString() };
}

/** `pending` until accepted or past its expiry. */
export function invitationStatus(invitation: Pick<Invitation, "acceptedAt" | "expiresAt">, now: Date): "pending" | "accepted" | "expired" {
  if (invitation.acceptedAt) return "accepted";
  return invitation.expiresAt.getTime() <= now.getTime() ? "expired" : "pending";
}

/** An invitation as admins list it: never its token. */
export function invitationJson(invitation: Invitation, now: Date) {
  return {
    id: invitation.id,
    role: invitation.role,
    email: invitation.email,
    status: invitationStatus(invitation, now),
    created_by: invitation.createdBy,
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
    accepted_at: invitation.acceptedAt?.toISOString() ?? null,
    accepted_by: invitation.acceptedBy,
  };
}

/** The invitation link: the dashboard's page that accepts it (docs/teams.md). */
export function invitationUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/app/invite/${token}`;
}

/** The answer to a create: the invitation, this once its token and link, and whether it was mailed. */
export function createdInvitationJson(invitation: Invitation, now: Date, token: string, url: string, mailed: boolean) {
  return { ...invitationJson(invitation, now), token, url, mailed };
}

/** What an invitation link shows before it is accepted. */
export function invitationPreviewJson(preview: InvitationPreview) {
  return {
    workspace: { id: preview.workspaceId, name: preview.workspaceName },
    role: preview.role,
    email: preview.email,
    invited_by: preview.inviterName,
    expires_at: preview.expiresAt.toISOString(),
  };
}
