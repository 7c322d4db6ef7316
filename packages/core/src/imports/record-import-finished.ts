import { and, eq, gte, sql } from "drizzle-orm";
import { auditLog, importJobs, type Db } from "@shortener/db";
import { importAuditView } from "../audit/audit-views.ts";
import { recordSystemAudit } from "../audit/record-audit.ts";
import { importJobColumns } from "./import-job.ts";

/**
 * The audit entry of a finished import (`import.finished`, CONTRACT §24): one for the whole job, with its
 * counts, never one per row. The worker (or the sweep of interrupted uploads) finishes a job outside any
 * request: the actor is the user who made the job, read from its `import.created` entry (null if that
 * entry is gone with retention), with no key, session or client group. Call it in the transaction that
 * finishes the job.
 */
export async function recordImportFinished(db: Db, at: Date, jobId: number, previousStatus: string): Promise<void> {
  const [job] = await db.select(importJobColumns).from(importJobs).where(eq(importJobs.id, jobId));
  if (!job) return;
  const [made] = await db
    .select({ userId: auditLog.actorUserId })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.workspaceId, job.workspaceId),
        eq(auditLog.objectType, "import"),
        eq(auditLog.objectId, String(jobId)),
        eq(auditLog.action, "import.created"),
        // Written when the upload ended, after the job row: the time index narrows the search.
        gte(auditLog.createdAt, sql`${job.createdAt.toISOString()}::timestamptz - interval '1 minute'`),
      ),
    )
    .limit(1);
  await recordSystemAudit(
    db,
    at,
    job.workspaceId,
    { userId: made?.userId ?? null, keyId: null, sessionId: null, clientGroup: null },
    { action: "import.finished", objectType: "import", objectId: jobId, before: { status: previousStatus }, after: importAuditView(job) },
  );
}
