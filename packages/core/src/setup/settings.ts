import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { settings, type Db } from "@shortener/db";

/** Reads a shared setting, creating it with `create()` on first use; concurrent first uses agree on one value. */
export async function getOrCreateSetting(db: Db, key: string, create: () => string): Promise<string> {
  await db.insert(settings).values({ key, value: create() }).onConflictDoNothing();
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
  if (!row) throw new Error(`setting ${key} vanished`);
  return row.value;
}

/** The secret that signs cookies: the configured one, else one generated once per database. */
export async function resolveSecret(db: Db, configured: string | undefined): Promise<string> {
  return configured ?? getOrCreateSetting(db, "secret", () => randomBytes(32).toString("base64url"));
}
