import type { TestProject } from "vitest/node";

/** Creates the migrated template every Postgres test file clones its own database from. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = project.config.env ?? {};
  Object.assign(process.env, env);
  // A relative path: the global setup runs in vitest's own process, which resolves workspace packages to dist/ (unbuilt in a fresh clone).
  const { createTemplateDb } = await import("../../packages/db/src/testing.ts");
  return createTemplateDb();
}
