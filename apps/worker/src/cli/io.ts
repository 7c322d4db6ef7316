/** Where the CLI writes, and how it learns of an interrupt. */
export type CliIo = {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  /** Called with a function that asks the import to stop after its current batch (the CLI wires SIGINT to it). */
  onInterrupt?: (stop: () => void) => void;
};
