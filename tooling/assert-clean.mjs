// Fails when git sees changes under the given path: used after `drizzle-kit generate` to prove the
// committed migrations match the schema.
import { execFileSync } from "node:child_process";

const path = process.argv[2] ?? ".";
const status = execFileSync("git", ["status", "--porcelain", "--", path], { encoding: "utf8" });
if (status.trim()) {
  console.error(`The schema and the committed migrations differ (run pnpm db:generate and commit):\n${status}`);
  process.exit(1);
}
console.log(`migrations match the schema (${path})`);
