// `pnpm restore FILE [--data-dir DIR]` (CONTRACT §22): loads a backup of `GET /api/v1/admin/backup` into an
// empty DATA_DIR; `pnpm start` then runs on it and migrates it as usual (docs/backups.md). One line out:
// what was restored, or why nothing was.
import { resolve } from "node:path";
import { formatBackupCounts, restoreEmbedded, RestoreError } from "@shortener/db";
import { EMBEDDED_SETTINGS } from "./embedded.ts";
import { parseEnv } from "./env.ts";

const USAGE = "usage: pnpm restore FILE [--data-dir DIR]   (DIR: DATA_DIR by default; it must be empty or missing)";

async function main(args: string[]): Promise<number> {
  const positional: string[] = [];
  let dataDirArg: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--data-dir") dataDirArg = args[++i];
    else if (arg.startsWith("--data-dir=")) dataDirArg = arg.slice("--data-dir=".length);
    else if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      return 0;
    } else if (arg.startsWith("-")) {
      console.error(`unknown option ${arg}. ${USAGE}`);
      return 2;
    } else positional.push(arg);
  }
  const file = positional[0];
  if (!file || positional.length > 1 || dataDirArg === "") {
    console.error(USAGE);
    return 2;
  }
  let dataDir = dataDirArg;
  if (dataDir === undefined) {
    let env;
    try {
      env = parseEnv(process.env);
    } catch (error) {
      console.error((error as Error).message);
      return 1;
    }
    if (env.DATABASE_URL) {
      console.error("DATABASE_URL is set: this service keeps its data in PostgreSQL, restore it with pg_restore (docs/backups.md), or pass --data-dir.");
      return 1;
    }
    dataDir = env.DATA_DIR;
  }
  try {
    const { manifest, counts } = await restoreEmbedded(resolve(file), resolve(dataDir), { pgliteSettings: EMBEDDED_SETTINGS });
    console.log(`restored ${file} (taken ${manifest.createdAt}) into DATA_DIR ${resolve(dataDir)}: ${formatBackupCounts(counts)}. Start the service on it with pnpm start.`);
    return 0;
  } catch (error) {
    console.error(error instanceof RestoreError ? error.message : `restore failed: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
