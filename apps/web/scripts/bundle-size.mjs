#!/usr/bin/env node
// Prints the size of what a first visit to /app/ loads: the scripts and styles index.html names, raw and
// gzip (level 9, as the API serves them). Fails past the budget of docs/adr/0034-dashboard-libraries-and-vocabulary.md (120 KB gzip of script).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const BUDGET_GZIP_JS = 120 * 1024;
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const html = readFileSync(join(dist, "index.html"), "utf8");
const files = [...html.matchAll(/(?:src|href)="\/app\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
let js = 0;
let rows = [];
for (const file of files) {
  const body = readFileSync(join(dist, file));
  const gz = gzipSync(body, { level: 9 }).length;
  if (file.endsWith(".js")) js += gz;
  rows.push(`  ${file}: ${(body.length / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzip`);
}
console.log(`dashboard initial load:\n${rows.join("\n")}\n  initial JS: ${(js / 1024).toFixed(1)} KB gzip (budget ${BUDGET_GZIP_JS / 1024} KB)`);
if (js > BUDGET_GZIP_JS) {
  console.error("The dashboard's initial JS is over its budget.");
  process.exit(1);
}
