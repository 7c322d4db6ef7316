import { SettingsError } from "@shortener/settings";

/** A setting that stops the start: its message is one line that names the variable. */
export class StartError extends SettingsError {}

/** `postgres://user:secret@host/db` → `postgres://user@host/db`: a start error never prints a password. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    return u.toString().replace(/:@/, "@");
  } catch {
    return "(unparseable URL)";
  }
}

/** The reason of a connection failure, on one line. */
export function reasonOf(error: unknown): string {
  // The innermost cause says what happened (drizzle wraps the driver's error in "Failed query: …").
  let e = error as { code?: string; message?: string; errors?: Array<{ message?: string }>; cause?: unknown };
  for (let depth = 0; e?.cause && depth < 5; depth++) e = e.cause as typeof e;
  // Node's AggregateError (IPv4 and IPv6 both refused) has an empty message.
  const message =
    e?.message ||
    e?.errors
      ?.map((x) => x.message)
      .filter(Boolean)
      .join("; ") ||
    e?.code ||
    String(error);
  return (message.split("\n")[0] ?? "").trim().replace(/\.+$/, "") || "unknown error";
}

/**
 * The line `pnpm start` prints when the start fails for a reason the operator can fix (a setting, an
 * unreachable database or Redis, a port in use, a locked data folder), or null for an unexpected
 * error, which is logged with its stack.
 */
export function startErrorLine(error: unknown, env: { PORT: number; HOST: string }): string | null {
  if (error instanceof SettingsError) return error.message;
  const e = error as NodeJS.ErrnoException;
  if (e?.code === "EADDRINUSE") return `Port ${env.PORT} on ${env.HOST} is already in use: set PORT to another port.`;
  if (e?.code === "EADDRNOTAVAIL") return `HOST ${env.HOST} is not an address of this machine: set HOST to one of its addresses.`;
  const message = typeof e?.message === "string" ? e.message : "";
  if (/^(DATA_DIR|DATABASE_URL|REDIS_URL|METRICS_PORT)\b/.test(message)) return message.split("\n")[0] ?? message;
  return null;
}
