import { and, eq, isNull } from "drizzle-orm";
import { domains, isUniqueViolation } from "@shortener/db";
import { domainAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError, type FieldErrors } from "../errors.ts";
import { notifyChange } from "../changes/changes.ts";
import { throwIfErrors } from "../validation/fields.ts";
import { checkClaim, DEFAULT_DOMAIN_POLICY, type DomainPolicy } from "./claim.ts";
import { domainDetailColumns, type DomainDetail } from "./domain-columns.ts";
import { getDomain } from "./domains.ts";
import type { TxtLookup } from "./lookup-txt.ts";
import { verificationRecordOf } from "./verification.ts";

export const RECORD_NOT_FOUND = "The verification record was not found.";

/**
 * Proves the caller's domain (CONTRACT §14): looks up its TXT record and, when one of the records is
 * the expected value, marks it verified, so the visitor side serves it from now on (announced, so every
 * redirect process drops its cached "unknown host" at once). A DNS failure of any kind (no such name,
 * a timeout, a refused query) is the same 422 as a missing record. An admin's domain, or any domain
 * when verification is off, is verified without a lookup. Already verified: answered as it is.
 */
export async function verifyDomain({ ctx, id, lookupTxt, policy = DEFAULT_DOMAIN_POLICY }: { ctx: Ctx; id: number; lookupTxt: TxtLookup; policy?: DomainPolicy }): Promise<DomainDetail> {
  const domain = await getDomain({ ctx, id });
  if (domain.verifiedAt) return domain;
  // The claim is checked again: an admin may have taken the host, or the operator reserved it, since.
  const errors: FieldErrors = {};
  await checkClaim(ctx.db, ctx.actor, domain.name, policy, errors);
  throwIfErrors(errors);
  const record = verificationRecordOf(domain);
  if (ctx.actor.role !== "admin" && policy.verification === "dns" && record) {
    const found = await lookupTxt(record.name).catch(() => [] as string[]);
    if (!found.some((value) => value.trim() === record.value)) throw ValidationError.field("name", RECORD_NOT_FOUND);
  }
  try {
    return await withTransaction(ctx, async (tx) => {
      const now = tx.now();
      const [row] = await tx.db
        .update(domains)
        .set({ verifiedAt: now, verificationToken: null, updatedAt: now })
        .where(and(eq(domains.id, domain.id), eq(domains.workspaceId, tx.actor.workspaceId), isNull(domains.verifiedAt)))
        .returning(domainDetailColumns);
      // Verified meanwhile by a concurrent call: answer it as it is now.
      if (!row) return getDomain({ ctx: tx, id: domain.id });
      await notifyChange(tx.db, { kind: "domain", name: row.name });
      await recordAudit(tx, { action: "domain.verified", objectType: "domain", objectId: row.id, before: domainAuditView(domain), after: domainAuditView(row) });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error, "domains_name_key")) throw ValidationError.field("name", "The name has already been taken.");
    throw error;
  }
}
