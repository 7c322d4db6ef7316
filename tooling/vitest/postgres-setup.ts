import type { TestProject } from "vitest/node";

/** Creates the migrated template every Postgres test file clones its own database from. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = project.config.env ?? {};
  Object.assign(process.env, env);
  // Vitest's own process loads this file and resolves package exports without the @shortener/source
  // condition (to dist/, which a fresh clone has not built): hence the source, by path.
  // eslint-disable-next-line boundaries/no-relative-cross-package -- see above
  const { createTemplateDb } = await import("../../packages/db/src/testing.ts");
  return createTemplateDb();
}
