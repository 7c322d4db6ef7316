export { hasRole, lowerRole, requireRole, roleRefusal, withArticle, WORKSPACE_ROLES } from "./roles.ts";
export {
  AcceptInvitationAsNewUserInput,
  AcceptInvitationInput,
  ChangeMemberRoleInput,
  CreateInvitationInput,
  CreateWorkspaceInput,
  ListWorkspaceItemsInput,
  PERSON_NAME_MAX,
  UpdateWorkspaceInput,
  WORKSPACE_NAME_MAX,
} from "./schemas.ts";
export { type Invitation, type Member, type Workspace } from "./workspace.ts";
export { listWorkspaces } from "./list-workspaces.ts";
export { getCurrentWorkspace, getWorkspace } from "./get-workspace.ts";
export { createWorkspace, MAX_WORKSPACES_PER_USER } from "./create-workspace.ts";
export { updateWorkspace } from "./update-workspace.ts";
export { deleteWorkspace } from "./delete-workspace.ts";
export { listMembers } from "./list-members.ts";
export { changeMemberRole } from "./change-member-role.ts";
export { removeMember } from "./remove-member.ts";
export { createInvitation, INVITATION_LIFETIME_MS, MAX_PENDING_INVITATIONS, type CreatedInvitation } from "./create-invitation.ts";
export { listInvitations } from "./list-invitations.ts";
export { revokeInvitation } from "./revoke-invitation.ts";
export { INVITATION_EXPIRED, INVITATION_UNKNOWN, INVITATION_USED, previewInvitation, type InvitationPreview } from "./take-invitation.ts";
export { acceptInvitation, acceptInvitationAsNewUser } from "./accept-invitation.ts";
export { switchWorkspace } from "./switch-workspace.ts";
