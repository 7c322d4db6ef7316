/**
 * A member's role in a workspace (CONTRACT §24), weakest first: each has every right of the ones before
 * it. The database's list (packages/db, `WORKSPACE_ROLES`) is the same; the dashboard's type check ties
 * this one to the API's (apps/web/src/workspace.ts).
 */
export const WORKSPACE_ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];
