import type { TestProject } from "vitest/node";

/** Creates the migrated template every Postgres test file clones its own database from. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = project.config.env ?? {};
  Object.assign(process.env, env);
  // Runs in vitest's own process: `pnpm test` starts it with the @shortener/source condition, so this is the source, not an unbuilt dist/.
  const { createTemplateDb } = await import("@shortener/db/testing");
  return createTemplateDb();
}
