import type { TestProject } from "vitest/node";

/** Creates the migrated template every Postgres test file clones its own database from. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = project.config.env ?? {};
  Object.assign(process.env, env);
  const { createTemplateDb } = await import("@shortener/db/testing");
  return createTemplateDb();
}
