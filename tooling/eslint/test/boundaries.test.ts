import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The boundary rules (tooling/eslint/boundaries.js) hold: a file that breaks one is planted where the
 * rule applies, linted through ESLint's Node API with the repository's own eslint.config.js, and must be
 * refused by that rule; the allowed counterparts must pass. The files are removed afterwards.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const eslint = new ESLint({ cwd: ROOT });
const probe = `__lint_probe_${randomBytes(4).toString("hex")}`;
const planted: string[] = [];

afterAll(() => {
  for (const dir of planted) rmSync(dir, { recursive: true, force: true });
});

/** Writes `code` to `<folder>/<probe>/<name>`, lints it, and answers the rules that reported. */
async function lintPlanted(folder: string, code: string, name = "planted.ts"): Promise<string[]> {
  const dir = join(ROOT, folder, probe);
  mkdirSync(dir, { recursive: true });
  if (!planted.includes(dir)) planted.push(dir);
  const file = join(dir, name);
  writeFileSync(file, code);
  try {
    const [result] = await eslint.lintFiles([file]);
    return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
  } finally {
    rmSync(file, { force: true });
  }
}

/** The same, for a path that must not be written (an env module's place): ESLint lints the text as that file. */
async function lintAs(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const IMPORTS = "no-restricted-imports";
const ENV = "no-restricted-properties";
const RELATIVE = "boundaries/no-relative-cross-package";

describe("boundary lint: planted violations are refused", () => {
  it.each([
    ["core imports an HTTP framework", "packages/core/src", 'import Fastify from "fastify";\nexport const app = Fastify;\n', IMPORTS],
    ["core imports a Fastify plugin", "packages/core/src", 'import multipart from "@fastify/multipart";\nexport const m = multipart;\n', IMPORTS],
    ["core imports tRPC", "packages/core/src", 'import { initTRPC } from "@trpc/server";\nexport const t = initTRPC;\n', IMPORTS],
    ["core imports a CSV parser", "packages/core/src", 'import { parse } from "csv-parse";\nexport const p = parse;\n', IMPORTS],
    ["core imports node:http", "packages/core/src", 'import { createServer } from "node:http";\nexport const s = createServer;\n', IMPORTS],
    ["core reads process.env", "packages/core/src", "export const url = process.env.DATABASE_URL;\n", ENV],
    ["core imports env from node:process", "packages/core/src", 'import { env } from "node:process";\nexport const url = env.DATABASE_URL;\n', IMPORTS],
    ["core imports an app", "packages/core/src", 'import { createApi } from "@shortener/api";\nexport const c = createApi;\n', IMPORTS],
    ["core reaches an app by a relative path", "packages/core/src", 'export { createApi } from "../../../../apps/api/src/app.ts";\n', RELATIVE],
    ["an app imports another app", "apps/redirect/src", 'import { createApi } from "@shortener/api";\nexport const c = createApi;\n', IMPORTS],
    ["an app imports the launcher", "apps/api/src", 'import { startServer } from "@shortener/launcher";\nexport const s = startServer;\n', IMPORTS],
    ["an app reaches another app by a relative path", "apps/api/src", 'import { createRedirect } from "../../../redirect/src/redirect.ts";\nexport const r = createRedirect;\n', RELATIVE],
    ["an app's test reaches another app by a relative path", "apps/worker/test", 'import { createApi } from "../../../api/src/index.ts";\nexport const a = createApi;\n', RELATIVE],
    ["an app reads process.env outside its env module", "apps/api/src", "export const port = Number(process.env.PORT);\n", ENV],
    ["a package imports an app", "packages/db/src", 'import { createRedirect } from "@shortener/redirect";\nexport const r = createRedirect;\n', IMPORTS],
    ["a package imports the launcher", "packages/db/src", 'import { startServer } from "@shortener/launcher";\nexport const s = startServer;\n', IMPORTS],
    ["a deep import into core's files", "apps/api/src", 'import { isAliasShaped } from "@shortener/core/src/links/alias.ts";\nexport const a = isAliasShaped;\n', IMPORTS],
    ["the vocabulary imports a package", "packages/vocabulary/src", 'import { z } from "zod";\nexport const s = z.string();\n', IMPORTS],
    ["the vocabulary imports db", "packages/vocabulary/src", 'import { links } from "@shortener/db";\nexport const l = links;\n', IMPORTS],
    ["the dashboard imports core's code", "apps/web/src", 'import { TARGET_TYPES } from "@shortener/core";\nexport const t = TARGET_TYPES;\n', IMPORTS],
    ["the client imports db's code", "packages/client/src", 'import { links } from "@shortener/db";\nexport const l = links;\n', IMPORTS],
  ])("%s", async (_name, folder, code, rule) => {
    expect(await lintPlanted(folder, code)).toContain(rule);
  });

  it("the client may take the API's router type, and nothing else of it (the one exception, written down)", async () => {
    expect(await lintAs(`packages/client/src/${probe}.ts`, 'import type { AppRouter } from "@shortener/api";\nexport type R = AppRouter;\n')).toEqual([]);
    expect(await lintAs(`packages/client/src/${probe}.ts`, 'import { createApi } from "@shortener/api";\nexport const c = createApi;\n')).toContain(IMPORTS);
  });

  it("env modules, entry points and tests may read process.env; nothing else in src", async () => {
    const code = "export const port = Number(process.env.PORT);\n";
    expect(await lintAs("apps/redirect/src/env.ts", code)).toEqual([]);
    expect(await lintAs("launcher/src/main.ts", code)).toEqual([]);
    expect(await lintAs(`apps/redirect/test/${probe}.test.ts`, code)).toEqual([]);
    expect(await lintAs(`apps/redirect/src/${probe}.ts`, code)).toContain(ENV);
  });

  it("what the boundaries allow passes: core's own imports, the launcher composing the apps", async () => {
    expect(
      await lintPlanted(
        "packages/core/src",
        'import { z } from "zod";\nimport { sql } from "drizzle-orm";\nimport { isAliasShaped } from "../links/alias.ts";\nexport const all = [z, sql, isAliasShaped];\n',
      ),
    ).toEqual([]);
    expect(
      await lintPlanted("launcher/src", 'import { createApi } from "@shortener/api";\nimport { createRedirect } from "@shortener/redirect";\nexport const all = [createApi, createRedirect];\n'),
    ).toEqual([]);
    expect(await lintPlanted("apps/api/src", 'import { createLink } from "@shortener/core";\nimport { isApiPath } from "../app.ts";\nexport const all = [createLink, isApiPath];\n')).toEqual([]);
    expect(await lintPlanted("packages/vocabulary/src", 'import { TARGET_TYPES } from "../targeting.ts";\nexport const t = TARGET_TYPES;\n')).toEqual([]);
    expect(await lintPlanted("apps/web/src", 'import { TARGET_TYPES } from "@shortener/vocabulary";\nexport const t = TARGET_TYPES;\n')).toEqual([]);
  });
});
