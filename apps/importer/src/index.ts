export { createImporter, DEFAULT_IMPORTER_CONFIG, type Importer, type ImporterConfig, type ImporterDeps, type ImporterLog } from "./importer.ts";
export { createBossDb, IMPORT_QUEUE } from "./queue.ts";
