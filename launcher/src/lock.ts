/** The data-folder lock lives in @shortener/db: the operator CLI (apps/worker) takes it too. */
export { lockDataDir } from "@shortener/db";
