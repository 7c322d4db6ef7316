import { count, sql } from "drizzle-orm";
import { domains, users } from "@shortener/db";
import { withTransaction, type SystemCtx } from "../context.ts";
import { generateApiKey, issueApiKey } from "../users/api-keys.ts";
import { insertUserWithWorkspace } from "../workspaces/personal.ts";

export type BootstrapResult = { created: false } | { created: true; adminEmail: string; apiKey: string; apiKeyWasGenerated: boolean; domainName: string; domainId: number | null };

/** An arbitrary constant: serialises first starts of several processes on one database. */
const BOOTSTRAP_LOCK = 727_002;

/**
 * First start on an empty database: creates the admin, its key (the configured one or a random one)
 * and a domain for the service's own address. Does nothing once any user exists.
 */
export async function bootstrap(ctx: SystemCtx, options: { adminApiKey: string | undefined; localDomain: string }): Promise<BootstrapResult> {
  return withTransaction(ctx, async (tx) => {
    await tx.db.execute(sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`);
    const [existing] = await tx.db.select({ n: count() }).from(users);
    if ((existing?.n ?? 0) > 0) return { created: false };
    const now = tx.now();
    const admin = await insertUserWithWorkspace(tx.db, { email: "admin@localhost", name: "Administrator", role: "admin", at: now });
    const apiKey = await issueApiKey(tx.db, admin.id, admin.workspaceId, options.adminApiKey ?? generateApiKey());
    const [domain] = await tx.db
      .insert(domains)
      .values({ workspaceId: admin.workspaceId, name: options.localDomain, verifiedAt: now, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning({ id: domains.id });
    return {
      created: true,
      adminEmail: admin.email,
      apiKey,
      apiKeyWasGenerated: options.adminApiKey === undefined,
      domainName: options.localDomain,
      domainId: domain?.id ?? null,
    };
  });
}
