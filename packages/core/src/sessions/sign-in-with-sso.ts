import { z } from "zod";
import { and, eq, isNull, sql } from "drizzle-orm";
import { isUniqueViolation, users } from "@shortener/db";
import { withTransaction, type Ctx, type SystemCtx } from "../context.ts";
import { ForbiddenError, ValidationError } from "../errors.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { UNDISPLAYABLE } from "../validation/display-name.ts";
import { insertUserWithWorkspace, personalActor } from "../workspaces/personal.ts";

/**
 * What an OpenID provider said about the person signing in, once the adapter has checked the ID token
 * (signature, issuer, audience, nonce): the claims as they came, not yet trusted for anything else.
 */
export type SsoIdentity = { issuer: string; subject: string; email: unknown; emailVerified: unknown; name?: unknown; preferredUsername?: unknown };

/** How the user was found: by their recorded subject, by their verified email (the subject is now recorded), or created. */
export type SsoOutcome = "matched" | "linked" | "created";

/** Why single sign-on refuses a person: the slug the adapter answers with, and a sentence for them. */
export type SsoRefusal = "email_not_verified" | "email_missing" | "identity_conflict";

/** A refusal of single sign-on (403): no user is created or changed, no session opened. */
export class SsoRefusedError extends ForbiddenError {
  readonly reason: SsoRefusal;
  constructor(reason: SsoRefusal, message: string) {
    super(message);
    this.name = "SsoRefusedError";
    this.reason = reason;
  }
}

/** The longest `issuer|sub` kept: OpenID Connect bounds `sub` at 255 ASCII characters; issuers are URLs. */
const MAX_SUBJECT_KEY = 2_048;
const NAME_MAX = 255;

const Email = z.string().trim().toLowerCase().max(255).pipe(z.email());

/** The identity's key in `users.oidc_subject`: `issuer|sub`, so one `sub` at two providers is two people. */
export function oidcSubjectOf(issuer: string, subject: string): string {
  return `${issuer}|${subject}`;
}

/** A display name from the claims: `name`, else `preferred_username`, else the email's local part; undisplayable characters dropped, cut to 255. */
function displayNameOf(identity: SsoIdentity, email: string): string {
  for (const claim of [identity.name, identity.preferredUsername]) {
    if (typeof claim !== "string") continue;
    const cleaned = claim.replace(new RegExp(UNDISPLAYABLE.source, "gu"), " ").replace(/\s+/g, " ").trim();
    if (cleaned) return [...cleaned].slice(0, NAME_MAX).join("").trim();
  }
  return email.split("@")[0] || email;
}

/**
 * The user a verified OpenID Connect identity signs in as (CONTRACT §24, docs/sso.md): the one whose
 * `oidc_subject` is `issuer|sub`; else the one with that email, case aside (the subject is recorded
 * then, so a later change of email at the provider keeps the account); else a new user with their
 * personal workspace. The provider must say `email_verified: true` — anything else (false, absent,
 * the string "true") is refused and nothing is written: an unverified email would hand its holder
 * the account of whoever owns that address here. An account already tied to another identity is not
 * taken over by email either. Creating and linking are written to the audit log of the user's personal
 * workspace, in the same transaction.
 */
export async function signInWithSso(ctx: SystemCtx, identity: SsoIdentity): Promise<{ userId: number; outcome: SsoOutcome }> {
  if (typeof identity.issuer !== "string" || typeof identity.subject !== "string" || !identity.subject || /\p{Cc}/u.test(identity.subject)) {
    throw ValidationError.field("sub", "The provider sent no usable subject (sub).");
  }
  const subjectKey = oidcSubjectOf(identity.issuer, identity.subject);
  if (subjectKey.length > MAX_SUBJECT_KEY) throw ValidationError.field("sub", "The provider's subject (sub) is too long.");
  if (identity.email === undefined || identity.email === null || identity.email === "") {
    throw new SsoRefusedError("email_missing", "The identity provider sent no email address: allow the email scope for this application at the provider.");
  }
  if (identity.emailVerified !== true) {
    throw new SsoRefusedError("email_not_verified", "Your email address is not verified at the identity provider: verify it there, then sign in again.");
  }
  const parsed = Email.safeParse(identity.email);
  if (!parsed.success || /\p{Cc}/u.test(parsed.data)) throw ValidationError.field("email", "The email the provider sent is not a valid email address.");
  const email = parsed.data;

  const attempt = () =>
    withTransaction(ctx, async (tx) => {
      const [bySubject] = await tx.db.select({ id: users.id }).from(users).where(eq(users.oidcSubject, subjectKey)).limit(1);
      if (bySubject) return { userId: bySubject.id, outcome: "matched" as const };
      // The exact address first, should two accounts differ only by case.
      const [byEmail] = await tx.db
        .select({ id: users.id, role: users.role, oidcSubject: users.oidcSubject })
        .from(users)
        .where(sql`lower(${users.email}) = ${email}`)
        .orderBy(sql`${users.email} = ${email} desc`, users.id)
        .limit(1);
      if (byEmail) {
        // Made by a concurrent first sign-in of the same person that committed between the two reads.
        if (byEmail.oidcSubject === subjectKey) return { userId: byEmail.id, outcome: "matched" as const };
        if (byEmail.oidcSubject !== null) {
          throw new SsoRefusedError("identity_conflict", "This email belongs to an account that signs in with another single sign-on identity: ask an administrator.");
        }
        const linked = await tx.db
          .update(users)
          .set({ oidcSubject: subjectKey, updatedAt: tx.now() })
          .where(and(eq(users.id, byEmail.id), isNull(users.oidcSubject)))
          .returning({ id: users.id });
        if (!linked.length) throw new SsoRefusedError("identity_conflict", "This account was just tied to another single sign-on identity: ask an administrator.");
        await auditInPersonal(tx, byEmail, "user.sso_linked", { oidc_subject: null }, { oidc_subject: subjectKey });
        return { userId: byEmail.id, outcome: "linked" as const };
      }
      const created = await insertUserWithWorkspace(tx.db, { email, name: displayNameOf(identity, email), oidcSubject: subjectKey, at: tx.now() });
      await auditInPersonal(tx, created, "user.created", null, { email: created.email, name: created.name, role: created.role, oidc_subject: subjectKey });
      return { userId: created.id, outcome: "created" as const };
    });
  try {
    return await attempt();
  } catch (error) {
    // Two first sign-ins of one person at once (two tabs): the second finds the user the first made.
    if (isUniqueViolation(error, "users_oidc_subject_key") || isUniqueViolation(error, "users_email_key")) return attempt();
    throw error;
  }
}

/** One audit entry in the user's personal workspace, the user acting (no key or session yet: the sign-in is opening one). */
async function auditInPersonal(tx: SystemCtx, user: { id: number; role: "admin" | "user" }, action: string, before: Record<string, unknown> | null, after: Record<string, unknown>): Promise<void> {
  const actor = await personalActor(tx.db, user);
  if (!actor) return;
  const ctx: Ctx = { ...tx, actor };
  await recordAudit(ctx, { action, objectType: "user", objectId: user.id, before, after });
}
