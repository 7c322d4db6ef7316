export { parseEnv, Env } from "./env.ts";
export { startServer, localDomainName, type RunningServer } from "./server.ts";
