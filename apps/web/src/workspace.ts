import { useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useLocation, useNavigate } from "react-router";
import { WORKSPACE_ROLES, type WorkspaceRole } from "@shortener/vocabulary";
import { useTRPC, type Outputs } from "./trpc.ts";

/** The workspace the session acts in, with the user's role there (CONTRACT §24; tRPC `workspaces.current`). */
export type Workspace = Outputs["workspaces"]["current"];

// The vocabulary's roles are the API's, word for word: either side changing alone fails the type check.
type ApiRole = Workspace["role"];
const sameRoles: [ApiRole, WorkspaceRole] extends [WorkspaceRole, ApiRole] ? true : never = true;
void sameRoles;

export { WORKSPACE_ROLES, type WorkspaceRole };

/** Whether `have` is at least `need` (`viewer < editor < admin < owner`): every role has the rights of the ones below it. */
export function hasRole(have: WorkspaceRole, need: WorkspaceRole): boolean {
  return WORKSPACE_ROLES.indexOf(have) >= WORKSPACE_ROLES.indexOf(need);
}

/** `a viewer`, `an editor`, `an admin`, `an owner`. */
export function withArticle(role: WorkspaceRole): string {
  return `${/^[aeiou]/.test(role) ? "an" : "a"} ${role}`;
}

/** The workspace acted in, shared by every screen (one cached query); undefined while it loads. */
export function useWorkspace(): Workspace | undefined {
  const trpc = useTRPC();
  return useQuery(trpc.workspaces.current.queryOptions()).data;
}

/**
 * Whether the user's role in the workspace allows `need`: screens hide or disable what it does not
 * (false while the workspace loads). Only a courtesy: the server judges every call, and its 403 is shown.
 */
export function useCan(need: WorkspaceRole): boolean {
  const workspace = useWorkspace();
  return workspace !== undefined && hasRole(workspace.role, need);
}

const samePath = (a: QueryKey, b: QueryKey) => JSON.stringify(a[0]) === JSON.stringify(b[0]);

/**
 * What follows a change of the workspace acted in (a switch, a new workspace, leaving or deleting one):
 * the new workspace is the current one at once, and every other query of the cache starts afresh —
 * reset, not merely invalidated, so no screen shows the previous workspace's links while it refetches.
 * A screen of one object (a link) belongs to the previous workspace: back to the links list.
 */
export function useWorkspaceChanged(): (workspace: Workspace | null) => Promise<void> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  return async (workspace) => {
    const current = trpc.workspaces.current.queryKey();
    const me = trpc.auth.me.queryKey();
    if (workspace) queryClient.setQueryData(current, workspace);
    if (/^\/links\/\d+/.test(pathname) || /^\/invite\//.test(pathname)) navigate("/", { replace: /^\/invite\//.test(pathname) });
    await queryClient.resetQueries({ predicate: (query) => !samePath(query.queryKey, me) && !(workspace && samePath(query.queryKey, current)) });
  };
}
