import type { ReactNode } from "react";
import { hasRole, useWorkspace, withArticle, type WorkspaceRole } from "./workspace.ts";

/**
 * A screen that needs a role in the workspace (CONTRACT §24: webhooks and keys need admin, imports
 * editor): below it, a sentence saying so instead of a screen whose every call would be refused. The
 * server still judges each call; this only spares the user the 403s.
 */
export function RoleGate({ need, children }: { need: WorkspaceRole; children: ReactNode }) {
  const workspace = useWorkspace();
  if (!workspace) return <p aria-live="polite">Loading…</p>;
  if (hasRole(workspace.role, need)) return children;
  return (
    <section aria-labelledby="role-gate-title">
      <h1 id="role-gate-title">Not for your role</h1>
      <p className="banner" role="status" data-testid="role-gate">
        This screen needs the {need} role in the workspace {workspace.name}; you are {withArticle(workspace.role)}. An admin of the workspace can change your role on its Members screen.
      </p>
    </section>
  );
}
