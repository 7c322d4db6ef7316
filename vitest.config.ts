import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Projects, one lane each (docs/testing.md):
 * - `unit`: pure tests, no database, no browser, no child process (`pnpm test:unit`, well under a minute);
 * - `types`: the client's compile-time tests;
 * - `system`: `*.system.test.ts`, the real entry point in a child process, the packed client, the
 *   embedded template (no database server, but tens of seconds each);
 * - `pglite` and `postgres`: every `*.db.test.ts`, once per driver; `*.pg.test.ts` on Postgres only;
 * - `browser`: `*.browser.test.ts`, Chromium against the real server, run once (on PGlite).
 * Postgres is TEST_DATABASE_URL, or the machine's local server when that is unset; `TEST_DATABASE_URL=off`
 * runs PGlite only. An explicitly set URL that cannot be reached fails the run.
 */
const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Workspace packages export built JavaScript (`dist/`) by default and their TypeScript sources under the
 * `@shortener/source` condition: tests resolve the sources, so they need no build. Processes a test
 * spawns (`node --import tsx launcher/src/main.ts`) inherit the condition through NODE_OPTIONS.
 */
const SOURCE_CONDITION = "@shortener/source";
const CONDITIONS = [SOURCE_CONDITION, "module", "node", "development|production"];
if (!process.env.NODE_OPTIONS?.includes(`--conditions=${SOURCE_CONDITION}`)) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--conditions=${SOURCE_CONDITION}`].filter(Boolean).join(" ");
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) });
    socket.setTimeout(1500);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

export default defineConfig(async () => {
  const explicit = process.env.TEST_DATABASE_URL;
  let postgresUrl: string | undefined = explicit === "off" ? undefined : (explicit ?? LOCAL_POSTGRES);
  if (postgresUrl && !(await reachable(postgresUrl))) {
    if (explicit) throw new Error(`TEST_DATABASE_URL=${explicit} cannot be reached`);
    console.warn(`\n  No PostgreSQL at ${LOCAL_POSTGRES}: running the database suites on PGlite only.\n`);
    postgresUrl = undefined;
  }
  const runId = randomBytes(4).toString("hex");
  const dbTests = ["**/*.db.test.ts"];
  /** Postgres-only suites (a server that goes away and comes back): PGlite is in-process and cannot. */
  const pgTests = ["**/*.pg.test.ts"];
  const systemTests = ["**/*.system.test.ts"];
  const browserTests = ["**/*.browser.test.ts"];
  const exclude = ["**/node_modules/**", "**/dist/**"];
  return {
    resolve: { conditions: CONDITIONS },
    ssr: { resolve: { conditions: CONDITIONS, externalConditions: [SOURCE_CONDITION] } },
    test: {
      testTimeout: 30_000,
      hookTimeout: 60_000,
      // Most files wait on a server, a database or a child process rather than compute, so as many files run
      // at once as there are cores (vitest's default is one fewer than the cores: 1 on two).
      // TEST_WORKERS overrides (docs/testing.md).
      maxWorkers: Number(process.env.TEST_WORKERS) || Math.max(2, availableParallelism()),
      projects: [
        { extends: true, test: { name: "unit", include: ["**/*.test.ts"], exclude: [...exclude, ...dbTests, ...pgTests, ...systemTests, ...browserTests] } },
        { extends: true, test: { name: "system", include: systemTests, exclude } },
        { extends: true, test: { name: "browser", include: browserTests, exclude, env: { TEST_DB_DRIVER: "pglite" } } },
        // Compile-time tests (`*.test-d.ts`): tsc checks them, a failing `expectTypeOf` or an unused `@ts-expect-error` fails the run.
        {
          extends: true,
          test: {
            name: "types",
            include: [],
            typecheck: { enabled: true, only: true, include: ["packages/client/test/**/*.test-d.ts"], tsconfig: "./packages/client/tsconfig.json" },
          },
        },
        { extends: true, test: { name: "pglite", include: dbTests, exclude, env: { TEST_DB_DRIVER: "pglite" } } },
        ...(postgresUrl
          ? [
              {
                extends: true,
                test: {
                  name: "postgres",
                  include: [...dbTests, ...pgTests],
                  exclude,
                  env: { TEST_DB_DRIVER: "postgres", TEST_DATABASE_URL: postgresUrl, TEST_RUN_ID: runId },
                  globalSetup: ["./tooling/vitest/postgres-setup.ts"],
                },
              },
            ]
          : []),
      ],
    },
  };
});
