/*
 * The service's shared words: the closed lists of values that the contract names and that the database,
 * core, the typed client and the dashboard all spell (docs/adr/0034-dashboard-libraries-and-vocabulary.md).
 * Plain constants and their types only: this package imports nothing, so the dashboard's bundle takes
 * these lists without drizzle, zod or Node (tooling/eslint/boundaries.js keeps it so).
 */
export { IMPORT_FORMAT_LABELS, IMPORT_FORMATS, IMPORT_STATUSES, type ImportFormat, type ImportStatus } from "./imports.ts";
export { LINK_FIELDS, LINK_HEALTH, LINK_STATUS, LINK_STATUS_NAMES, type LinkField, type LinkHealth, type LinkStatus } from "./links.ts";
export { PIXEL_TYPES, type PixelType } from "./pixels.ts";
export { API_KEY_SCOPES, type Scope } from "./scopes.ts";
export { GROUP_OF_TYPE, PLATFORMS, TARGET_GROUPS, TARGET_TYPE_VALUES, TARGET_TYPES, type Platform, type TargetGroup, type TargetType } from "./targeting.ts";
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhooks.ts";
export { WORKSPACE_ROLES, type WorkspaceRole } from "./workspaces.ts";
