#!/usr/bin/env node
/**
 * Writes dist/index.d.ts: the client's declarations with the router's types in the file itself, so a
 * service outside this repository needs only @trpc/client and @trpc/server (docs/adr/0022-builds-and-operations.md).
 *
 * The router type (`AppRouter` of @shortener/api) is read with the TypeScript compiler from the API's
 * sources, and every procedure's input, output and error shape is printed as a plain structural type
 * (objects, arrays, unions, literals, strings, numbers, booleans, null). It names nothing of the server:
 * no context, no database, no Fastify, no zod. A type this printer does not know (a function, a class
 * instance, `any`, `unknown`) stops the build: a published input or output must be data, fully typed.
 * The rest of the file is the client's own declarations (`ts.transpileDeclaration` of src/index.ts).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "src/index.ts");
const out = join(root, "dist/index.d.ts");

// The program of the client's tsconfig (it resolves workspace packages to their sources).
const configPath = join(root, "tsconfig.json");
const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(ts.flattenDiagnosticMessageText(d.messageText, "\n")) });
if (!config) fail(`cannot read ${configPath}`);
const program = ts.createProgram({ rootNames: [entry], options: { ...config.options, noEmit: true } });
const checker = program.getTypeChecker();
const source = program.getSourceFile(entry) ?? fail(`no ${entry}`);

function fail(message) {
  console.error(`build-types: ${message}`);
  process.exit(1);
}

/** The `AppRouter` type the client's source imports. */
function appRouterType() {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || statement.moduleSpecifier.text !== "@shortener/api") continue;
    const element = statement.importClause?.namedBindings?.elements?.find((e) => e.name.text === "AppRouter");
    if (!element) continue;
    const symbol = checker.getSymbolAtLocation(element.name);
    const target = symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (target) return checker.getDeclaredTypeOfSymbol(target);
  }
  fail('src/index.ts does not import type { AppRouter } from "@shortener/api"');
}

const prop = (type, name) => {
  const symbol = checker.getPropertyOfType(type, name);
  return symbol ? checker.getTypeOfSymbol(symbol) : undefined;
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A data type as TypeScript source, structurally: nothing named but literals and primitives. */
function print(type, where, depth = 0, dropUndefined = false) {
  if (depth > 40) fail(`${where}: nested too deeply`);
  const f = type.flags;
  if (f & ts.TypeFlags.Any) fail(`${where}: any`);
  if (f & ts.TypeFlags.Unknown) fail(`${where}: unknown`);
  if (f & ts.TypeFlags.Never) return "never";
  if (f & ts.TypeFlags.Void) return "void";
  if (f & ts.TypeFlags.Undefined) return "undefined";
  if (f & ts.TypeFlags.Null) return "null";
  if (f & ts.TypeFlags.String) return "string";
  if (f & ts.TypeFlags.Number) return "number";
  if (f & ts.TypeFlags.Boolean) return "boolean";
  if (f & ts.TypeFlags.StringLiteral) return JSON.stringify(type.value);
  if (f & ts.TypeFlags.NumberLiteral) return String(type.value);
  if (f & ts.TypeFlags.BooleanLiteral) return checker.typeToString(type);
  if (type.isUnion()) {
    const types = dropUndefined ? type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)) : type.types;
    const parts = [...new Set(types.map((t) => print(t, where, depth + 1)))];
    // `true | false` is how the checker holds `boolean`.
    const hasBoth = parts.includes("true") && parts.includes("false");
    const members = hasBoth ? ["boolean", ...parts.filter((p) => p !== "true" && p !== "false")] : parts;
    return members.map((p) => (p.includes("=>") ? `(${p})` : p)).join(" | ");
  }
  if (type.isIntersection()) return type.types.map((t) => wrap(print(t, where, depth + 1))).join(" & ");
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type);
    return `${wrap(print(element, `${where}[]`, depth + 1))}[]`;
  }
  if (checker.isTupleType(type))
    return `[${checker
      .getTypeArguments(type)
      .map((t, i) => print(t, `${where}[${i}]`, depth + 1))
      .join(", ")}]`;
  if (f & ts.TypeFlags.Object) {
    if (type.getCallSignatures().length || type.getConstructSignatures().length) fail(`${where}: a function is no data`);
    const symbol = type.getSymbol();
    if (symbol && ["Date", "Map", "Set", "Promise", "Buffer", "Uint8Array"].includes(symbol.getName())) fail(`${where}: ${symbol.getName()} is no JSON`);
    const members = [];
    for (const info of checker.getIndexInfosOfType(type)) {
      members.push(`[key: ${print(info.keyType, where, depth + 1)}]: ${print(info.type, `${where}[key]`, depth + 1)}`);
    }
    for (const member of checker.getPropertiesOfType(type)) {
      const name = member.getName();
      const optional = member.flags & ts.SymbolFlags.Optional ? "?" : "";
      const memberType = checker.getTypeOfSymbol(member);
      const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
      // An optional property's type carries `undefined`: `?` says it already.
      members.push(`${key}${optional}: ${print(memberType, `${where}.${name}`, depth + 1, Boolean(optional))}`);
    }
    return members.length ? `{ ${members.join("; ")} }` : "{}";
  }
  fail(`${where}: a type this printer does not know (${checker.typeToString(type)})`);
}

const wrap = (text) => (/[|&]/.test(text) && !/^[{[]/.test(text) ? `(${text})` : text);

/** The router's record: procedures and nested records, with their types printed. */
function printRecord(type, path, errorShapeText) {
  const entries = [];
  for (const member of checker.getPropertiesOfType(type)) {
    const name = member.getName();
    const value = checker.getTypeOfSymbol(member);
    const where = path ? `${path}.${name}` : name;
    const def = prop(value, "_def");
    const isProcedure = def && prop(def, "procedure");
    if (isProcedure) {
      const kind = prop(def, "type");
      const types = prop(def, "$types") ?? fail(`${where}: no $types`);
      const procedure = { query: "TRPCQueryProcedure", mutation: "TRPCMutationProcedure" }[kind?.value] ?? fail(`${where}: a ${kind && checker.typeToString(kind)} procedure is not published`);
      const input = print(prop(types, "input"), `${where} input`);
      const output = print(prop(types, "output"), `${where} output`);
      const errorShape = print(prop(types, "errorShape"), `${where} errorShape`);
      if (errorShape !== errorShapeText) fail(`${where}: an error shape of its own`);
      entries.push(`${name}: ${procedure}<{ input: ${input}; output: ${output}; meta: object; errorShape: ErrorShape }>`);
    } else {
      entries.push(`${name}: ${printRecord(value, where, errorShapeText)}`);
    }
  }
  return `{ ${entries.join("; ")} }`;
}

const router = appRouterType();
const routerDef = prop(router, "_def") ?? fail("AppRouter has no _def");
const rootTypes = prop(prop(routerDef, "_config") ?? fail("no _config"), "$types") ?? fail("no $types");
const errorShape = print(prop(rootTypes, "errorShape"), "errorShape");
const transformer = prop(rootTypes, "transformer");
if (!transformer || checker.typeToString(transformer) !== "false") fail("the router has a data transformer: the published types assume none");
const record = printRecord(prop(routerDef, "record") ?? fail("no record"), "", errorShape);

const routerDeclaration = [
  `import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";`,
  `/** What a failed call's \`error.data\` and message look like (REST's slug, the field errors of a 422). */`,
  `type ErrorShape = ${errorShape};`,
  `/**`,
  ` * The service's tRPC router, as types only: every procedure's input and output. Generated from the`,
  ` * API's router by scripts/build-types.mjs; the server's context is not part of it.`,
  ` */`,
  `export type AppRouter = TRPCBuiltRouter<{ ctx: object; meta: object; errorShape: ErrorShape; transformer: false }, ${record}>;`,
].join("\n");

// The client's own declarations, with the router's import replaced by the type itself.
const own = ts.transpileDeclaration(readFileSync(entry, "utf8"), { fileName: entry, compilerOptions: { ...config.options, declaration: true } });
if (own.diagnostics?.length) fail(own.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n"));
const importLine = /^import type \{ AppRouter \} from "@shortener\/api";\n/m;
if (!importLine.test(own.outputText)) fail('the declarations of src/index.ts do not import type { AppRouter } from "@shortener/api" on one line');
// Relative imports name the built files (`./webhooks.ts` → `./webhooks.js`), as tsc's rewriteRelativeImportExtensions does for the JavaScript.
const text = own.outputText
  .replace(importLine, `${routerDeclaration}\n`)
  .replace(/(from "\.{1,2}\/[^"]+)\.ts"/g, '$1.js"')
  .replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
if (/@shortener\//.test(text.replace(/"@shortener\/client"/g, ""))) fail("the declarations still name a workspace package");

mkdirSync(dirname(out), { recursive: true });
const formatted = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed }).printFile(ts.createSourceFile(out, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
writeFileSync(out, `// Generated by scripts/build-types.mjs from the API's router: do not edit.\n${formatted}`);
console.log(`build-types: wrote ${out} (${formatted.length} characters)`);

// dist/vocabulary/: @shortener/vocabulary (plain constants, no imports) copied in, JavaScript and
// declarations, so the webhook events' list is the repository's one list and the published client still
// needs no workspace package. Imports of it in dist/ are rewritten to this folder below.
const VOCABULARY = "@shortener/vocabulary";
const vocabularySrc = join(dirname(fileURLToPath(import.meta.resolve(VOCABULARY))), "..", "src");
const vocabularyOut = join(root, "dist/vocabulary");
const vocabularyFiles = readdirSync(vocabularySrc)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => join(vocabularySrc, f));
for (const path of vocabularyFiles) {
  if (/^import\s|from "(?!\.)/m.test(readFileSync(path, "utf8"))) fail(`${path} imports something: the vocabulary must stand alone`);
}
const vocabularyBuild = ts
  .createProgram({
    rootNames: vocabularyFiles,
    options: { ...config.options, noEmit: false, declaration: true, sourceMap: false, outDir: vocabularyOut, rootDir: vocabularySrc, rewriteRelativeImportExtensions: true },
  })
  .emit();
if (vocabularyBuild.emitSkipped) fail(`cannot build ${vocabularySrc}`);
const toCopiedVocabulary = (text) => text.replaceAll(`"${VOCABULARY}"`, '"./vocabulary/index.js"');

// dist/webhooks.d.ts: the signature checker stands alone (node:crypto and the vocabulary only), so its own declarations do.
const webhooksEntry = join(root, "src/webhooks.ts");
const webhooks = ts.transpileDeclaration(readFileSync(webhooksEntry, "utf8"), { fileName: webhooksEntry, compilerOptions: { ...config.options, declaration: true } });
if (webhooks.diagnostics?.length) fail(webhooks.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n"));
const webhooksDeclarations = toCopiedVocabulary(webhooks.outputText);
if (/"@shortener\//.test(webhooksDeclarations)) fail("the declarations of src/webhooks.ts import a workspace package");
writeFileSync(join(root, "dist/webhooks.d.ts"), webhooksDeclarations.replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n"));
// tsc wrote dist/webhooks.js with the package's name: point it at the copy too.
const webhooksJs = join(root, "dist/webhooks.js");
writeFileSync(webhooksJs, toCopiedVocabulary(readFileSync(webhooksJs, "utf8")));
for (const file of readdirSync(join(root, "dist")).filter((f) => f.endsWith(".js"))) {
  if (readFileSync(join(root, "dist", file), "utf8").includes(`"@shortener/`)) fail(`dist/${file} still imports a workspace package`);
}
