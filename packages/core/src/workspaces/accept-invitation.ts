import { eq, sql } from "drizzle-orm";
import { users, isUniqueViolation, workspaces } from "@shortener/db";
import { withTransaction, type Ctx, type SystemCtx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { hashPassword } from "../secrets/hash.ts";
import { parseInput } from "../validation/fields.ts";
import { insertUserWithWorkspace } from "./personal.ts";
import { AcceptInvitationAsNewUserInput, AcceptInvitationInput } from "./schemas.ts";
import { joinByInvitation, takeInvitation } from "./take-invitation.ts";
import { workspaceColumns, type Workspace } from "./workspace.ts";

/**
 * The signed-in caller (key or session) accepts an invitation: they become a member with its role, and
 * the invitation is used up, in one transaction. Unknown, revoked, used or expired: 422 on `token`;
 * already a member: 409. The caller keeps acting where they were; the answer is the workspace joined.
 */
export async function acceptInvitation({ ctx, input }: { ctx: Ctx; input: AcceptInvitationInput }): Promise<Workspace> {
  const { token } = parseInput(AcceptInvitationInput, input);
  return withTransaction(ctx, async (tx) => {
    const invitation = await takeInvitation(tx.db, token, tx.now());
    await joinByInvitation(tx, invitation, { id: tx.actor.userId, role: tx.actor.role }, tx.actor.via);
    const [row] = await tx.db.select(workspaceColumns).from(workspaces).where(eq(workspaces.id, invitation.workspaceId));
    if (!row) throw new Error("workspace vanished under its lock");
    return { ...row, role: invitation.role };
  });
}

/**
 * A new person accepts an invitation with a name, an email and a password (the public route): their
 * user is created with its personal workspace (`insertUserWithWorkspace`), then the membership, all in
 * one transaction — a refused invitation or a taken email leaves nothing behind. Returns the new user
 * and the workspace joined, for the session the route opens.
 */
export async function acceptInvitationAsNewUser(
  ctx: SystemCtx,
  input: AcceptInvitationAsNewUserInput,
  via: { clientGroup: string | null } = { clientGroup: null },
): Promise<{ userId: number; workspaceId: number }> {
  const data = parseInput(AcceptInvitationAsNewUserInput, input);
  // The invitation is checked before the (slow) password hash, and again under its lock below.
  await takeInvitation(ctx.db, data.token, ctx.now(), { lock: false });
  const [taken] = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = ${data.email}`)
    .limit(1);
  if (taken) throw emailTaken();
  const passwordHash = await hashPassword(data.password);
  try {
    return await withTransaction(ctx, async (tx) => {
      const invitation = await takeInvitation(tx.db, data.token, tx.now());
      const user = await insertUserWithWorkspace(tx.db, { email: data.email, name: data.name, passwordHash, at: tx.now() });
      await joinByInvitation(tx, invitation, { id: user.id, role: user.role }, { keyId: null, sessionId: null, clientGroup: via.clientGroup });
      return { userId: user.id, workspaceId: invitation.workspaceId };
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_email_key")) throw emailTaken();
    throw error;
  }
}

const emailTaken = () => ValidationError.field("email", "The email has already been taken: sign in with it, then accept the invitation.");
