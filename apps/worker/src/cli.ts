import { runCli } from "./run-cli.ts";

/** `pnpm importer import <file.csv> --user <email> …` (see USAGE in run-cli.ts). */
let stop: (() => void) | undefined;
let interrupts = 0;
process.on("SIGINT", () => {
  interrupts++;
  if (interrupts > 1 || !stop) process.exit(130);
  stop();
});
const code = await runCli(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr, onInterrupt: (fn) => (stop = fn) });
process.exit(code);
