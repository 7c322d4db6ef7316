export { createImporter, DEFAULT_IMPORTER_CONFIG, type Importer, type ImporterConfig, type ImporterDeps, type ImporterLog } from "./importer.ts";
export { createBossDb, IMPORT_QUEUE } from "./queue.ts";
export { createWebhookWorker, DEFAULT_WEBHOOK_CONFIG, WEBHOOK_QUEUE, type WebhookWorker, type WebhookWorkerConfig, type WebhookWorkerDeps } from "./webhooks/worker.ts";
export { resolveTarget, systemLookup, type Lookup, type Target } from "./webhooks/target.ts";
export { signatureHeader } from "./webhooks/sign.ts";
export { createClickPartitionKeeper, CLICK_PARTITION_INTERVAL_MS, type ClickPartitionKeeper, type ClickPartitionKeeperDeps, type ClickPartitionRun } from "./click-partitions.ts";
export { runCli, type CliIo } from "./run-cli.ts";
export { importRowsOf } from "./process-job.ts";
