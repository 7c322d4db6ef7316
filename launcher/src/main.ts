import pino from "pino";
import { parseEnv } from "./env.ts";
import { prepareEmbeddedForStart } from "./embedded.ts";
import { settleMemory } from "./settle-memory.ts";
import { startServer } from "./server.ts";
import { startErrorLine } from "./start-errors.ts";
import { welcome } from "./welcome.ts";

/** How long after the start the start's garbage is collected (settle-memory.ts). */
const SETTLE_AFTER_MS = 2_000;

let env;
try {
  env = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const logger = pino({ level: env.LOG_LEVEL, timestamp: pino.stdTimeFunctions.isoTime });
// The access log (CONTRACT §16): its own JSON lines on stdout, written asynchronously.
const accessLog = env.ACCESS_LOG === "off" ? undefined : pino.destination({ dest: 1, sync: false });
let running;
try {
  running = await startServer(env, logger, { prepareEmbedded: prepareEmbeddedForStart, ...(accessLog ? { writeAccessLog: (line: string) => void accessLog.write(line) } : {}) });
} catch (error) {
  // A setting the operator can fix: one line naming it, no stack (CONTRACT §13, §16).
  const line = startErrorLine(error, env);
  if (line) console.error(line);
  else logger.fatal({ err: error }, "start failed");
  process.exit(1);
}

// Once the start is over and traffic has not yet come, the garbage of the start is collected.
setTimeout(settleMemory, SETTLE_AFTER_MS).unref();
console.log(welcome(running.url, running.boot, running.database.driver, { services: env.SERVICES, metricsPort: env.METRICS_PORT, host: env.HOST }));

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const server = running;
    server
      .close()
      .then(() => {
        accessLog?.flushSync();
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      });
  });
}
