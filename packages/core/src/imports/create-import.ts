import { and, eq } from "drizzle-orm";
import { checkOwnership } from "../links/ownership.ts";
import { domains, importJobs, importSourceParts } from "@shortener/db";
import { importAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { parseFields, throwIfErrors } from "../validation/fields.ts";
import { importJobColumns, type ImportJob } from "./import-job.ts";
import { CreateImportShape, type CreateImportInput } from "./schemas.ts";

/**
 * A stored file is kept in parts of at most this many characters (`import_source_parts`): written and
 * read back one part at a time, a part is all either side holds (docs/adr/0013-import-memory-and-storage.md).
 */
export const SOURCE_PART_CHARS = 1024 * 1024;

/**
 * Queues an import job (CONTRACT §12). With an idempotency key the caller has used before, nothing is
 * created: the earlier job comes back with `isNew: false`. The rows themselves are read by a worker (or
 * the operator CLI) and written by `runImport`.
 *
 * The file is `input.source`, or `sourceParts` for a large one (bounded memory: the API streams an
 * upload from disk). It is stored in parts: the job row is inserted not ready (`checkpoint_line` 0,
 * which no worker takes), each part inserted, and the job made ready at the end; on any failure the
 * row (and so its parts) is deleted. Text that Postgres cannot store (NUL) becomes U+FFFD, which the
 * row check then reports, like any byte that was not UTF-8.
 */
export async function createImport({ ctx, input, sourceParts }: { ctx: Ctx; input: CreateImportInput; sourceParts?: AsyncIterable<string> }): Promise<{ job: ImportJob; isNew: boolean }> {
  const { values: v, errors } = parseFields(CreateImportShape, input);
  const workspaceId = ctx.actor.workspaceId;
  if (v.idempotency_key !== undefined) {
    const earlier = await findByKey(ctx, v.idempotency_key);
    if (earlier) return { job: earlier, isNew: false };
  }
  if (v.domain_id !== undefined) {
    const [owned] = await ctx.db
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.id, v.domain_id), eq(domains.workspaceId, workspaceId)));
    checkOwnership({ domainId: v.domain_id }, { domainIds: new Set(owned ? [owned.id] : []), spaceIds: new Set(), pixelIds: new Set() }, errors);
  }
  throwIfErrors(errors);

  const now = ctx.now();
  const parts = sourceParts ?? (v.source === undefined ? undefined : [v.source]);
  // One audit entry when the job is ready (`import.created`), in the transaction that makes it so; one more when it finishes.
  const recordCreated = (tx: Ctx, job: ImportJob) => recordAudit(tx, { action: "import.created", objectType: "import", objectId: job.id, after: importAuditView(job) });
  const insertJob = (tx: Ctx) =>
    tx.db
      .insert(importJobs)
      .values({
        workspaceId,
        status: "queued",
        idempotencyKey: v.idempotency_key ?? null,
        defaultDomainId: v.domain_id ?? null,
        hasSource: parts !== undefined,
        format: v.format ?? "csv",
        totalRows: v.total_rows ?? 0,
        checkpointLine: parts ? 0 : 1,
        createdAt: now,
      })
      .onConflictDoNothing({ target: [importJobs.workspaceId, importJobs.idempotencyKey] })
      .returning(importJobColumns);
  const [row] = parts
    ? await insertJob(ctx)
    : await withTransaction(ctx, async (tx) => {
        const inserted = await insertJob(tx);
        if (inserted[0]) await recordCreated(tx, inserted[0]);
        return inserted;
      });
  if (!row) {
    // Two requests with one key at once: the other one inserted first.
    const earlier = v.idempotency_key !== undefined ? await findByKey(ctx, v.idempotency_key) : undefined;
    if (!earlier) throw new Error("import job insert returned no row");
    return { job: earlier, isNew: false };
  }
  if (parts) {
    try {
      let part = 0;
      for await (const text of parts) {
        for (const content of cutSourceText(text, SOURCE_PART_CHARS)) {
          await ctx.db.insert(importSourceParts).values({ jobId: row.id, part: part++, content: storable(content) });
        }
      }
      await withTransaction(ctx, async (tx) => {
        await tx.db.update(importJobs).set({ checkpointLine: 1 }).where(eq(importJobs.id, row.id));
        await recordCreated(tx, row);
      });
    } catch (error) {
      await ctx.db.delete(importJobs).where(eq(importJobs.id, row.id));
      throw error;
    }
  }
  return { job: row, isNew: true };
}

/**
 * A text in pieces of at most `maxChars` (one more where a piece would end between the two halves of a
 * surrogate pair, so each piece is valid text on its own), of even length: never a full piece and a
 * sliver.
 */
export function cutSourceText(text: string, maxChars: number): string[] {
  const size = Math.ceil(text.length / Math.ceil(text.length / maxChars));
  const pieces: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function storable(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\ufffd") : text;
}

async function findByKey(ctx: Ctx, key: string): Promise<ImportJob | undefined> {
  const [row] = await ctx.db
    .select(importJobColumns)
    .from(importJobs)
    .where(and(eq(importJobs.workspaceId, ctx.actor.workspaceId), eq(importJobs.idempotencyKey, key)));
  return row;
}
