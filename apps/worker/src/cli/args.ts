import { parseArgs } from "node:util";
import { IMPORT_FORMATS, isImportFormat, type ImportFormat } from "@shortener/core";

export const USAGE = `Usage: pnpm importer import <file.csv> --user <email> [--domain <name>] [--format <name>] [--dry-run] [--again]

Imports a CSV of links (docs/importing.md) straight into the database as <email>'s links.
  --domain <name>   the domain of rows that name none (one of the user's domains), and of
                    rows whose short URL is on a domain that is not one of them
  --format <name>   ${IMPORT_FORMATS.join("|")} (default csv): another service's own export
                    file, read as that service writes it (docs/migrating.md)
  --dry-run         check every row and report, write nothing
  --again           import the file again as a new job (by default the same file, user and
                    domain are one job: running the command again resumes or reports it)
  --batch-size <n>  rows per transaction (default 5000)
The database is DATABASE_URL, else the embedded one in DATA_DIR (default ./.data), as for pnpm start.
Row errors go to <file.csv>.errors.csv, or <file.csv>.errors-2.csv, -3, … when that file exists (an
errors file is never overwritten). Exit status: 0 done (even with row errors), 1 failed, 2 usage.`;

/** A failure the CLI explains in its own words on stderr, with its exit status (2: usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export type CliArgs = { file: string; user: string; domain?: string; format: ImportFormat; isDryRun: boolean; isAgain: boolean; batchSize?: number };

/** The command line, or "help"; anything else is a CliError with exit status 2 and the usage. */
export function parseCliArgs(argv: string[]): CliArgs | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        user: { type: "string" },
        domain: { type: "string" },
        format: { type: "string", default: "csv" },
        "dry-run": { type: "boolean", default: false },
        again: { type: "boolean", default: false },
        "batch-size": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  const [command, file, ...rest] = positionals;
  if (command !== "import" || !file || rest.length) throw new CliError(USAGE, 2);
  if (!values.user) throw new CliError(`--user <email> is required.\n\n${USAGE}`, 2);
  const format = values.format ?? "csv";
  if (!isImportFormat(format)) throw new CliError(`--format must be one of ${IMPORT_FORMATS.join(", ")}.`, 2);
  let batchSize: number | undefined;
  if (values["batch-size"] !== undefined) {
    batchSize = Number(values["batch-size"]);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 50_000) throw new CliError("--batch-size must be an integer from 1 to 50000.", 2);
  }
  return {
    file,
    user: values.user,
    ...(values.domain !== undefined ? { domain: values.domain } : {}),
    format,
    isDryRun: values["dry-run"] ?? false,
    isAgain: values.again ?? false,
    ...(batchSize ? { batchSize } : {}),
  };
}
