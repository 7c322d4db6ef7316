import { freePort, openServerStorage } from "@shortener/db/testing";
import pino from "pino";
import { parseEnv } from "./env.ts";
import { startServer, type RunningServer } from "./server.ts";

/** A running service whose `close()` also removes its storage; `settings` point at that storage (DATA_DIR or DATABASE_URL). */
export type TestServer = RunningServer & { port: number; base: string; settings: Record<string, string> };

/**
 * The whole service in this process, as `pnpm start` runs it, for tests (`@shortener/launcher/testing`):
 * on storage of its own (a temporary data folder, or an empty Postgres database: `openServerStorage`)
 * and a free port, with a silent log. `settings` are added to the environment it parses; `close()` stops
 * it and removes its storage.
 */
export async function startTestServer(settings: Record<string, string> = {}, options: { host?: string } = {}): Promise<TestServer> {
  const storage = await openServerStorage();
  try {
    const port = await freePort();
    // Destination health checks are off unless a test turns them on: its links point at hosts that do not exist here.
    const server = await startServer(parseEnv({ ...storage.settings, PORT: String(port), HEALTH_CHECKS: "off", ...settings }), pino({ level: "silent" }));
    return {
      ...server,
      settings: storage.settings,
      port,
      base: `http://${options.host ?? "127.0.0.1"}:${port}`,
      async close() {
        try {
          await server.close();
        } finally {
          await storage.close();
        }
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
