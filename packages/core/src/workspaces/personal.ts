import { eq } from "drizzle-orm";
import { users, workspaceMembers, workspaces, type Db } from "@shortener/db";
import type { Actor } from "../context.ts";

export type NewUser = { email: string; name: string; role?: "admin" | "user"; passwordHash?: string | null; oidcSubject?: string | null; at?: Date };

/**
 * Creates a user with their personal workspace, of which they are the owner (CONTRACT §24): every way a
 * user comes to be (the first start, an admin, single sign-on, tests) goes through here, so no user is
 * ever without a workspace. Run it inside the caller's transaction.
 */
export async function insertUserWithWorkspace(db: Db, values: NewUser): Promise<{ id: number; email: string; name: string; role: "admin" | "user"; createdAt: Date; workspaceId: number }> {
  const at = values.at ?? new Date();
  const [user] = await db
    .insert(users)
    .values({ email: values.email, name: values.name, role: values.role ?? "user", passwordHash: values.passwordHash ?? null, oidcSubject: values.oidcSubject ?? null, createdAt: at, updatedAt: at })
    .returning({ id: users.id, email: users.email, name: users.name, role: users.role, createdAt: users.createdAt });
  if (!user) throw new Error("insert returned no row");
  const [workspace] = await db.insert(workspaces).values({ name: values.name, personalUserId: user.id, createdAt: at, updatedAt: at }).returning({ id: workspaces.id });
  if (!workspace) throw new Error("insert returned no row");
  await db.insert(workspaceMembers).values({ workspaceId: workspace.id, userId: user.id, role: "owner", createdAt: at });
  return { ...user, workspaceId: workspace.id };
}

/**
 * The actor for operator tools that act as a user without a key (the importer's CLI, benchmarks): the
 * user in their personal workspace, as its owner. Null when the user has none (never, once migrated).
 */
export async function personalActor(db: Db, user: { id: number; role: "admin" | "user" }): Promise<Actor | null> {
  const [row] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.personalUserId, user.id)).limit(1);
  return row ? { userId: user.id, role: user.role, workspaceId: row.id, workspaceRole: "owner" } : null;
}
