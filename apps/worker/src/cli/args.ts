import { parseArgs } from "node:util";
import { IMPORT_FORMATS, isImportFormat, type ImportFormat } from "@shortener/core";
import { SOURCES } from "../migrate/sources.ts";

const SOURCE_NAMES = Object.keys(SOURCES);

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
errors file is never overwritten). Exit status: 0 done (even with row errors), 1 failed, 2 usage.

   or: pnpm importer migrate --from <source> --url <base url> --key <api key> --user <email>
                             [--domain <name>] [--dry-run] [--batch-size <n>]

Copies every link of another service, through its API, into <email>'s links (docs/migrating.md):
  --from <source>   ${SOURCE_NAMES.join(", ")}
  --url, --key      the source's base URL and API key (the key is never stored)
  --domain <name>   the domain of links the source puts on no named domain
  --dry-run         read every page and report what would be created, skipped and refused; write nothing
The run is an import job: stopped (Ctrl-C, killed, the source down), the same command resumes it from
its last committed page. Aliases that cannot be kept go to migrate-<source>-<job>.refused.csv here.`;

/** A failure the CLI explains in its own words on stderr, with its exit status (2: usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export type CliArgs = { command: "import"; file: string; user: string; domain?: string; format: ImportFormat; isDryRun: boolean; isAgain: boolean; batchSize?: number };

/** `importer migrate`: a live source (CONTRACT §23). */
export type MigrateArgs = { command: "migrate"; from: string; url: string; key: string; user: string; domain?: string; isDryRun: boolean; batchSize?: number };

/** The command line, or "help"; anything else is a CliError with exit status 2 and the usage. */
export function parseCliArgs(argv: string[]): CliArgs | MigrateArgs | "help" {
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
        from: { type: "string" },
        url: { type: "string" },
        key: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  const [command, file, ...rest] = positionals;
  if (command === "migrate") {
    if (file !== undefined) throw new CliError(`migrate takes no file.\n\n${USAGE}`, 2);
    for (const option of ["from", "url", "key", "user"] as const) if (!values[option]) throw new CliError(`--${option} is required.\n\n${USAGE}`, 2);
    const from = values.from as string;
    if (!SOURCE_NAMES.includes(from)) throw new CliError(`--from must be one of ${SOURCE_NAMES.join(", ")} (not ${from}).`, 2);
    const url = values.url as string;
    if (!/^https?:\/\/[^\s/]+/i.test(url) || !URL.canParse(url)) throw new CliError(`--url must be the source's http(s) base URL (not ${url}).`, 2);
    if (values.again) throw new CliError("--again is for import: a migration run again finds what is already here and skips it.", 2);
    const batchSize = batchSizeOf(values["batch-size"]);
    return {
      command: "migrate",
      from,
      url,
      key: values.key as string,
      user: values.user as string,
      ...(values.domain !== undefined ? { domain: values.domain } : {}),
      isDryRun: values["dry-run"] ?? false,
      ...(batchSize ? { batchSize } : {}),
    };
  }
  if (command !== "import" || !file || rest.length) throw new CliError(USAGE, 2);
  if (values.from !== undefined || values.url !== undefined || values.key !== undefined) throw new CliError(`--from, --url and --key are for migrate.\n\n${USAGE}`, 2);
  if (!values.user) throw new CliError(`--user <email> is required.\n\n${USAGE}`, 2);
  const format = values.format ?? "csv";
  if (!isImportFormat(format)) throw new CliError(`--format must be one of ${IMPORT_FORMATS.join(", ")}.`, 2);
  const batchSize = batchSizeOf(values["batch-size"]);
  return {
    command: "import",
    file,
    user: values.user,
    ...(values.domain !== undefined ? { domain: values.domain } : {}),
    format,
    isDryRun: values["dry-run"] ?? false,
    isAgain: values.again ?? false,
    ...(batchSize ? { batchSize } : {}),
  };
}

function batchSizeOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 50_000) throw new CliError("--batch-size must be an integer from 1 to 50000.", 2);
  return n;
}
