import { users } from "@shortener/db";
import type { Db } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { issueApiKey } from "../users/api-keys.ts";
import { randomBase62 } from "../secrets/random.ts";

export { freePort, openTestDb } from "@shortener/db/testing";

/** A unique suffix for names in tests: factories never share rows between tests. */
export function unique(prefix = "t"): string {
  return `${prefix}${randomBase62(10).toLowerCase()}`;
}

export type TestUser = { id: number; email: string; role: "admin" | "user"; apiKey: string; ctx: Ctx };

/** Creates a user with a fresh API key, and a core context acting as them. */
export async function createTestUser(db: Db, overrides: { role?: "admin" | "user"; email?: string; now?: () => Date } = {}): Promise<TestUser> {
  const role = overrides.role ?? "user";
  const email = overrides.email ?? `${unique("u")}@example.test`;
  const [user] = await db.insert(users).values({ email, name: "Test User", role }).returning({ id: users.id });
  if (!user) throw new Error("insert returned no row");
  const apiKey = await issueApiKey(db, user.id);
  const now = overrides.now ?? (() => new Date());
  return { id: user.id, email, role, apiKey, ctx: { db, now, actor: { userId: user.id, role } } };
}

export { startTestDns, type TestDns, type TestDnsMode } from "./dns-server.ts";
