import pino from "pino";
import { parseEnv } from "./env.ts";
import { startServer } from "./server.ts";
import { welcome } from "./welcome.ts";

let env;
try {
  env = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const logger = pino({ level: env.LOG_LEVEL });
let running;
try {
  running = await startServer(env, logger);
} catch (error) {
  const e = error as NodeJS.ErrnoException;
  if (e.code === "EADDRINUSE") console.error(`Port ${env.PORT} on ${env.HOST} is already in use: set PORT to another port.`);
  else if (e.message?.startsWith("DATA_DIR")) console.error(e.message);
  else logger.fatal({ err: error }, "start failed");
  process.exit(1);
}

console.log(welcome(running.url, running.boot, running.database.driver));

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const server = running;
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      });
  });
}
