import { domains } from "@shortener/db";
import type { Db } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import type { Click } from "../visits/record-clicks.ts";
import { issueApiKey } from "../users/api-keys.ts";
import { randomBase62 } from "../secrets/random.ts";
import { insertUserWithWorkspace } from "../workspaces/personal.ts";

export { freePort, openTestDb } from "@shortener/db/testing";

/** A unique suffix for names in tests: factories never share rows between tests. */
export function unique(prefix = "t"): string {
  return `${prefix}${randomBase62(10).toLowerCase()}`;
}

/** A test user: `workspaceId` is their personal workspace's, where `apiKey` and `ctx` act (as its owner). */
export type TestUser = { id: number; email: string; role: "admin" | "user"; workspaceId: number; apiKey: string; ctx: Ctx };

/** Creates a user with a fresh API key, and a core context acting as them. */
export async function createTestUser(db: Db, overrides: { role?: "admin" | "user"; email?: string; now?: () => Date } = {}): Promise<TestUser> {
  const role = overrides.role ?? "user";
  const email = overrides.email ?? `${unique("u")}@example.test`;
  const user = await insertUserWithWorkspace(db, { email, name: "Test User", role });
  const apiKey = await issueApiKey(db, user.id, user.workspaceId);
  const now = overrides.now ?? (() => new Date());
  return { id: user.id, email, role, workspaceId: user.workspaceId, apiKey, ctx: { db, now, actor: { userId: user.id, role, workspaceId: user.workspaceId, workspaceRole: "owner" } } };
}

export { startTestDns, type TestDns, type TestDnsMode } from "./dns-server.ts";
export { seededRandom } from "./seeded-random.ts";
export { EXPORT_FILE_OUTCOME, exportFile, exportFileErrors, sortErrors } from "./export-files.ts";

/** A click on `linkId` at `at` with no visitor facts (no country, platform, referrer…), not yet counted; `traits` set some. */
export function testClick(linkId: number, at: string, traits: Partial<Click> = {}): Click {
  return { linkId, at: new Date(at), country: null, platform: null, browser: null, device: null, language: null, referrer: null, counted: false, rotation: null, ...traits };
}

/** A domain row of `workspaceId` with a unique name, written straight to the table (no verb, no checks): for tests of what lies under links. */
export async function insertTestDomain(db: Db, workspaceId: number): Promise<{ id: number; name: string }> {
  const [domain] = await db
    .insert(domains)
    .values({ workspaceId, name: `${unique()}.example` })
    .returning({ id: domains.id, name: domains.name });
  if (!domain) throw new Error("no domain");
  return domain;
}

/** The field errors a call fails with (`{ field: [sentences] }`); anything else, a success or another error, throws. */
export async function validationFields(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ValidationError)) throw new Error(`expected a ValidationError, got ${error === null ? "a success" : String(error)}`, { cause: error });
  return error.fields;
}
