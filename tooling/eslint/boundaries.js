/*
 * The repository's boundaries as ESLint rules (ARCHITECTURE.md "Boundaries"): what each layer may
 * import, and where `process.env` may be read. tooling/eslint/test/boundaries.test.ts plants a file
 * that breaks each rule and checks that ESLint refuses it, so these rules cannot rot unnoticed.
 */
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The apps, by package name: only the launcher composes them. */
const APPS = ["@shortener/api", "@shortener/redirect", "@shortener/worker"];
const LAUNCHER = "@shortener/launcher";

/** What core may never import: transports, HTTP frameworks and clients, CSV, caches of adapters. */
const NOT_IN_CORE = [
  "fastify",
  "@fastify/*",
  "@trpc/*",
  "csv-parse",
  "csv-parse/*",
  "csv-stringify",
  "node:http",
  "node:https",
  "node:http2",
  "http",
  "https",
  "http2",
  "undici",
  "ioredis",
  "qs",
  "proxy-addr",
  "express",
  "hono",
];

/** Everyone: packages are imported through their `exports` (core has `.` and `./testing`), never deep. */
const DEEP_IMPORTS = { group: ["@shortener/*/src/*", "@shortener/*/src"], message: "Import a workspace package by its name and exports, not by its files." };
/** Everyone: the environment is read by the env modules only (`process.env`, see below). */
const ENV_MESSAGE = "Read settings in the app's env module (src/env.ts), not here.";
const PROCESS_ENV_IMPORTS = ["node:process", "process"].map((name) => ({ name, importNames: ["env"], message: ENV_MESSAGE }));

/** `no-restricted-imports` options: later config objects replace the rule's options whole, so each area lists all of its bans. */
function restricted({ names = [], patterns = [], message }) {
  return [
    "error",
    {
      paths: [...PROCESS_ENV_IMPORTS, ...names.filter((n) => !n.includes("*")).map((name) => ({ name, message }))],
      patterns: [DEEP_IMPORTS, ...patterns, ...(names.some((n) => n.includes("*")) ? [{ group: names.filter((n) => n.includes("*")), message }] : [])],
    },
  ];
}

/**
 * `no-restricted-imports` options for a consumer of the API's router TYPE (the client, the dashboard): that
 * type, and nothing else of any app; nor core or db, whose code (drizzle, zod, Node) can reach neither a
 * browser bundle nor the published client. The words both need are in @shortener/vocabulary.
 */
function routerTypeOnly(who) {
  return [
    "error",
    {
      paths: [
        ...PROCESS_ENV_IMPORTS,
        { name: "@shortener/api", allowTypeImports: true, message: `The ${who} may import the API's router type only (import type).` },
        ...["@shortener/redirect", "@shortener/worker", LAUNCHER].map((name) => ({ name, message: `The ${who} imports no app.` })),
        ...["@shortener/core", "@shortener/db"].map((name) => ({
          name,
          allowTypeImports: true,
          message: `The ${who} takes no code of ${name}: its shared words (events, target types, statuses, scopes) are in @shortener/vocabulary.`,
        })),
      ],
      patterns: [DEEP_IMPORTS],
    },
  ];
}

const packageRoots = new Map();

/** The folder of the package.json that owns `path` (a file or folder, existing or not). */
function packageRootOf(path) {
  let dir = path;
  const seen = [];
  for (;;) {
    const known = packageRoots.get(dir);
    if (known !== undefined) {
      for (const d of seen) packageRoots.set(d, known);
      return known;
    }
    seen.push(dir);
    if (existsSync(join(dir, "package.json"))) {
      for (const d of seen) packageRoots.set(d, dir);
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) {
      for (const d of seen) packageRoots.set(d, null);
      return null;
    }
    dir = up;
  }
}

/** A relative import that leaves its own package (`../../redirect/src/…`) dodges every rule above: refuse it. */
const noRelativeCrossPackage = {
  meta: {
    type: "problem",
    docs: { description: "Relative imports stay inside their own package." },
    messages: { cross: "'{{source}}' reaches into {{target}} by a relative path: import that package by its name (its exports)." },
    schema: [],
  },
  create(context) {
    const own = packageRootOf(dirname(context.filename));
    const check = (node, source) => {
      if (typeof source !== "string" || !source.startsWith(".")) return;
      const target = packageRootOf(dirname(resolve(dirname(context.filename), source)));
      if (target !== own) {
        context.report({ node, messageId: "cross", data: { source, target: target ? relative(context.cwd, target) || "the repository root" : "outside the repository" } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source.value),
    };
  },
};

export const boundariesPlugin = { meta: { name: "shortener-boundaries" }, rules: { "no-relative-cross-package": noRelativeCrossPackage } };

const TESTS = ["**/test/**", "**/*.test.ts", "**/*.test-d.ts"];

/** Flat-config objects, in order: a later object's `no-restricted-imports` replaces an earlier one's for its files. */
export const boundaries = [
  {
    plugins: { boundaries: boundariesPlugin },
    rules: {
      "boundaries/no-relative-cross-package": "error",
      "no-restricted-imports": restricted({}),
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read settings in the app's env module (src/env.ts) and pass them down; core never reads the environment." },
      ],
    },
  },
  {
    // Packages never import the apps or the launcher. packages/client's one exception is below.
    files: ["packages/**"],
    rules: { "no-restricted-imports": restricted({ names: [...APPS, LAUNCHER], message: "Packages never import an app or the launcher: only the launcher composes apps." }) },
  },
  {
    // A package's test may start the whole service, through the launcher (the one composition root).
    files: TESTS.map((t) => `packages/${t}`),
    rules: { "no-restricted-imports": restricted({ names: APPS, message: "Packages never import an app: start the service through @shortener/launcher." }) },
  },
  {
    // The one written-down exception (docs/adr/0005-trpc-and-client.md): the typed client takes the
    // router's TYPE from the API, and nothing of its code.
    files: ["packages/client/src/**"],
    rules: { "no-restricted-imports": routerTypeOnly("client") },
  },
  {
    // The vocabulary (docs/adr/0034-dashboard-libraries-and-vocabulary.md): plain constants under every
    // other package, the dashboard's bundle and the published client included, so it imports nothing.
    files: ["packages/vocabulary/src/**"],
    rules: {
      "no-restricted-imports": restricted({
        patterns: [{ regex: "^(?!\\.{1,2}/)", message: "@shortener/vocabulary imports nothing but its own files: it is plain constants that the dashboard and the published client copy." }],
      }),
    },
  },
  {
    // Core: the domain, free of transports, CSV, apps and the environment (STYLE §2).
    files: ["packages/core/**"],
    rules: {
      "no-restricted-imports": restricted({
        names: [...NOT_IN_CORE, ...APPS, LAUNCHER, "@shortener/client"],
        message: "Core holds no HTTP, tRPC, CSV or adapter code, and imports no app: put it in the adapter that needs it.",
      }),
    },
  },
  {
    // Apps never import each other (nor the launcher, which imports them).
    files: ["apps/**"],
    rules: { "no-restricted-imports": restricted({ names: [...APPS, LAUNCHER], message: "Apps never import each other: the launcher composes them." }) },
  },
  {
    // The dashboard (docs/adr/0028-dashboard.md) takes the router's TYPE from the API, as packages/client
    // does, and nothing of its code: the bundle talks to /trpc only.
    files: ["apps/web/**"],
    rules: { "no-restricted-imports": routerTypeOnly("dashboard") },
  },
  {
    // Where the environment may be read: the env modules, the entry points that hand `process.env` to
    // them, test and benchmark tooling.
    files: [
      "**/src/env.ts",
      "launcher/src/main.ts",
      "launcher/src/restore-cli.ts",
      "apps/worker/src/cli.ts",
      "packages/db/src/migrate-cli.ts",
      "packages/db/src/testing.ts",
      ...TESTS,
      "bench/**",
      "tooling/**",
      "*.config.ts",
      "**/*.config.ts",
    ],
    rules: { "no-restricted-properties": "off" },
  },
];
