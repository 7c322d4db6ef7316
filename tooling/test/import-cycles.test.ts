import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

/**
 * No module imports itself back, through any path, inside a package (issue 27: core had
 * `context.ts → links/load-links.ts → domains/domains.ts → context.ts`). Every relative import counts,
 * `import type` and `export … from` too: a type-only circle does nothing at run time, but it is the one
 * the issue named, and it ties the files together for a reader all the same.
 *
 * Why a test and not `import/no-cycle` or a package: the ESLint rule resolves and parses every import
 * again for each file (slow on this tree, and `pnpm lint` runs on every push); madge or
 * dependency-cruiser would be a new dependency for a graph walk. The compiler's own
 * `ts.preProcessFile` (already installed) reads the import statements without type-checking, and a
 * depth-first search finds the circles: the whole tree takes well under a second.
 */

const ROOT = resolve(import.meta.dirname, "../..");
/**
 * Circles that were there before this check and belong to another change: two type-only imports
 * between the visitor side's click buffer and its deps (apps/redirect is the performance work's). Remove
 * the entry when it is gone; a new circle anywhere fails.
 */
const KNOWN = new Set(["apps/redirect/src/clicks.ts → apps/redirect/src/deps.ts → apps/redirect/src/clicks.ts"]);

/** Every workspace package's sources; imports across packages go by name and are the boundary lint's business. */
const SOURCE_DIRS = ["packages", "apps"].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name, "src"))).concat(join(ROOT, "launcher/src"));

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative specifier names: as written (`./x.ts`), or with `.ts`, `.tsx` or `/index.ts` added. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((path) => existsSync(path) && statSync(path).isFile());
}

/** The import graph of the files: each file's relative imports (values, types and re-exports alike). */
function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      const targets = importedFiles.flatMap(({ fileName }) => (fileName.startsWith(".") ? (resolveImport(file, fileName) ?? []) : []));
      return [file, targets];
    }),
  );
}

/** Each circle found by a depth-first walk, as the files along it (the first one again at the end). */
export function findImportCycles(files: string[]): string[][] {
  const graph = importGraph(files);
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string) => {
    path.push(file);
    onPath.add(file);
    for (const next of graph.get(file) ?? []) {
      if (onPath.has(next)) cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!done.has(next) && graph.has(next)) visit(next);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return cycles;
}

describe("import cycles", () => {
  const planted = mkdtempSync(join(tmpdir(), "shortener-import-cycles-"));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it("finds a planted circle, through an `import type` and an extensionless path", () => {
    writeFileSync(join(planted, "context.ts"), 'import type { Link } from "./load-links.ts";\nexport type Ctx = { link?: Link };\n');
    writeFileSync(join(planted, "load-links.ts"), 'import { columns } from "./domains";\nexport type Link = { id: number };\nexport const linkColumns = columns;\n');
    writeFileSync(join(planted, "domains.ts"), 'import type { Ctx } from "./context.ts";\nexport const columns = {};\nexport type Use = Ctx;\n');
    writeFileSync(join(planted, "leaf.ts"), 'import { columns } from "./domains.ts";\nexport const x = columns;\n');
    const cycles = findImportCycles(sourceFiles(planted)).map((cycle) => cycle.map((file) => relative(planted, file)));
    expect(cycles).toHaveLength(1);
    expect(new Set(cycles[0])).toEqual(new Set(["context.ts", "load-links.ts", "domains.ts"]));
  });

  it("finds none in the packages' and apps' sources", () => {
    const files = SOURCE_DIRS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(200);
    const cycles = findImportCycles(files).map((cycle) => cycle.map((file) => relative(ROOT, file)).join(" → "));
    expect(cycles.filter((cycle) => !KNOWN.has(cycle))).toEqual([]);
  });
});
