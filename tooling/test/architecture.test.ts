import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * ARCHITECTURE.md stays true to the tree: every repository path it names exists, every file name it
 * gives without a folder (`deliver.ts`, `http/csv-upload.ts`) is some file's name, and every package
 * under `packages/` and `apps/` is on the map. A rename that forgets the page fails here, naming the
 * stale path. No database, no build: it reads files only.
 */
const ROOT = join(import.meta.dirname, "../..");
const PAGE = "ARCHITECTURE.md";
const TOP_FOLDERS = ["packages", "apps", "launcher", "tooling", "docs", "bench"];
/** Folders the tree holds but the page never means (build outputs, installs). */
const SKIPPED = new Set(["node_modules", "dist", ".turbo", ".data", "coverage", ".git"]);

const text = readFileSync(join(ROOT, PAGE), "utf8");

/** What the page puts between backticks, in prose and tables (fenced blocks hold diagrams and output). */
function backticked(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => (m[1] ?? "").trim());
}

/** The relative targets of the page's Markdown links, without their #anchors. */
function linkTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => (m[1] ?? "").split("#")[0] ?? "").filter((target) => target && !/^[a-z]+:/i.test(target));
}

/** A path from the repository's root, as the page writes it: `packages/core/src/…`, `launcher/`, `docs/adr/`. */
const REPO_PATH = new RegExp(`^(?:${TOP_FOLDERS.join("|")})(?:/[\\w.@-]+)*/?$`);
/** A file named without its folder from the root: `deliver.ts`, `serialize/resources.ts`, `src/env.ts`. */
const FILE_NAME = /^(?:[\w.-]+\/)*[\w.-]+\.(?:ts|tsx|mts|js|mjs|json|md|sql|lua)$/;

function allFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) allFiles(path, out);
    else out.push(relative(ROOT, path));
  }
  return out;
}

/** The workspace packages: folders under packages/ and apps/ with a package.json (a renamed one's leftover node_modules is not one). */
function workspacePackages(): string[] {
  return ["packages", "apps"].flatMap((top) =>
    readdirSync(join(ROOT, top))
      .filter((name) => statSync(join(ROOT, top, name)).isDirectory() && existsSync(join(ROOT, top, name, "package.json")))
      .map((name) => `${top}/${name}`),
  );
}

describe(`${PAGE} names the tree as it is`, () => {
  const spans = backticked(text);

  it("every repository path it names exists", () => {
    const paths = [...new Set([...spans.filter((span) => REPO_PATH.test(span)), ...linkTargets(text)])];
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it("every file it names without the folder from the root is a file of the tree", () => {
    const files = TOP_FOLDERS.filter((top) => existsSync(join(ROOT, top))).flatMap((top) => allFiles(join(ROOT, top)));
    const names = [...new Set(spans.filter((span) => FILE_NAME.test(span) && !REPO_PATH.test(span)))];
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !files.some((file) => file === name || file.endsWith(`/${name}`)))).toEqual([]);
  });

  it("every package under packages/ and apps/ is on it", () => {
    const packages = workspacePackages();
    expect(packages.length).toBeGreaterThan(5);
    expect(packages.filter((folder) => !new RegExp(`(?<![\\w-])${folder}(?![\\w-])`).test(text))).toEqual([]);
  });
});
