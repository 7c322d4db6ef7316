import type { Db, WorkspaceRole } from "@shortener/db";
import type { ImportJob, RowError } from "./imports/import-job.ts";
import type { Link } from "./links/link-columns.ts";
import type { Bounds } from "./users/scopes.ts";

export type Role = "admin" | "user";
/** A member's role in a workspace (CONTRACT §24), weakest first. */
export type { WorkspaceRole } from "@shortener/db";
/**
 * Who is acting: a user (`role`: their role on this instance) in a workspace (`workspaceRole`: theirs
 * there, at most). Every query on owned data filters by `workspaceId` (docs/adr/0044-workspaces.md).
 * `bounds`: what the key or session acting may hand on at most (docs/adr/0033-session-bounds.md);
 * absent, the user's full rights.
 */
export type Actor = { userId: number; role: Role; workspaceId: number; workspaceRole: WorkspaceRole; bounds?: Bounds; via?: ActorVia };
/** How the actor came (for the audit log, CONTRACT §24): the API key or dashboard session used, and the client group of the request. */
export type ActorVia = { keyId: number | null; sessionId: number | null; clientGroup: string | null };

/**
 * Renders the `data` of webhook events: the adapter's JSON of a link (CONTRACT §3) and of an import job
 * (§12), so an event carries exactly what the API answers. Core records link and import events only
 * when the context carries it (docs/adr/0023-webhooks.md).
 */
export type EventData = { link(link: Link): unknown; importJob(job: ImportJob & { errors: RowError[] }): unknown };

export type Ctx = { db: Db; now: () => Date; actor: Actor; events?: EventData };
/** A context with no actor: for system work (bootstrap, authentication, the visitor side). */
export type SystemCtx = { db: Db; now: () => Date; events?: EventData };

/** Runs `fn` in a transaction; inside an outer transaction this becomes a savepoint. */
export async function withTransaction<C extends { db: Db }, T>(ctx: C, fn: (tx: C) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => fn({ ...ctx, db: tx as unknown as Db }));
}
