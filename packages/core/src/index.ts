export * from "./errors.ts";
export { withTransaction, type Actor, type Ctx, type ActorVia, type Role, type SystemCtx, type WorkspaceRole } from "./context.ts";
export { parseInput, toFieldErrors } from "./validation/fields.ts";
export { coerceFormValues } from "./validation/coerce-form-values.ts";
export { IdInput } from "./validation/id-input.ts";
export { PER_PAGE_VALUES, type Page } from "./lists/pagination.ts";
export { hashPassword, verifyPassword, sha256 } from "./secrets/hash.ts";
export { randomBase62 } from "./secrets/random.ts";
export { API_KEY_PREFIX, API_KEY_PREFIX_LENGTH, authenticateApiKey, generateApiKey, isKeyExpired, issueApiKey, recordKeyUse, type Authenticated } from "./users/api-keys.ts";
export { API_KEY_SCOPES, hasFullRights, hasScope, type Bounds, type Scope } from "./users/scopes.ts";
export { CreateApiKeyInput, KEY_NAME_MAX, ListApiKeysInput, MAX_NAMED_KEYS_PER_USER } from "./users/key-schemas.ts";
export { type ApiKey } from "./users/named-key.ts";
export { createApiKey } from "./users/create-api-key.ts";
export { listApiKeys } from "./users/list-api-keys.ts";
export { deleteApiKey } from "./users/delete-api-key.ts";
export { CreateUserInput, ListUsersInput, UserIdInput } from "./users/schemas.ts";
export { createUser, deleteUser, findUserByEmail, getAccount, listUsers, rotateAccountKey, rotateApiKey, type User } from "./users/users.ts";
export { insertUserWithWorkspace, personalActor, type NewUser } from "./workspaces/personal.ts";
export * from "./workspaces/index.ts";
export { KeySignInInput, PasswordSignInInput, SetPasswordInput } from "./sessions/schemas.ts";
export {
  createSession,
  deleteSession,
  deleteUserSession,
  deleteUserSessions,
  findSession,
  listUserSessions,
  SESSION_LIFETIME_MS,
  SESSION_LIST_MAX,
  SESSION_SEEN_EVERY_MS,
  sessionUserAgent,
  type SessionAuth,
  type SessionKey,
  type SessionRow,
} from "./sessions/sessions.ts";
export { checkKeySignIn, checkPasswordSignIn, hasPassword, setPassword } from "./sessions/sign-in.ts";
export { oidcSubjectOf, signInWithSso, SsoRefusedError, type SsoIdentity, type SsoOutcome, type SsoRefusal } from "./sessions/sign-in-with-sso.ts";
export { isSsoRequiredOf, SSO_REQUIRED_MESSAGE } from "./sessions/sso-required.ts";
export { bootstrap, type BootstrapResult } from "./setup/bootstrap.ts";
export { getOrCreateSetting, resolveSecret } from "./setup/settings.ts";
export { findDomainByHost, hostCandidates, type ServedDomain } from "./domains/find-domain-by-host.ts";
export { parseCertificateName, MAX_CERTIFICATE_NAME_LENGTH, type CertificateName } from "./domains/certificate-name.ts";
export { CHANGES_CHANNEL, notifyChange, notifyLinksChange, onLocalChange, type Change, type LinkKey } from "./changes/changes.ts";
export { checkUrl, normalizeDomainName, isLocalOrIp, MAX_URL_LENGTH } from "./urls/url.ts";
export { COUNTRY_CODES, LANGUAGE_CODES, PLATFORMS, type Platform } from "./targeting/codes.ts";
export { PIXEL_TYPES, type PixelType } from "./pixels/pixel-types.ts";
export { isAliasShaped, isReservedAlias, MAX_ALIAS_LENGTH, RANDOM_ALIAS_LENGTH, RESERVED_PATHS, SERVICE_PATHS, SERVICE_ROUTES } from "./links/alias.ts";
export { CreateDomainInput, UpdateDomainInput, ListDomainsInput } from "./domains/schemas.ts";
export { createDomain, deleteDomain, findDomainByName, getDomain, listDomains, updateDomain } from "./domains/domains.ts";
export { type Domain, type DomainDetail } from "./domains/domain-columns.ts";
export { APP_LINK_FIELDS, APP_LINK_PATHS, MAX_APP_LINK_BYTES, type AppLinkField, type AppLinks } from "./domains/app-links.ts";
export { findAppLinks } from "./domains/find-app-links.ts";
export { DEFAULT_DOMAIN_POLICY, isReservedHost, type DomainPolicy } from "./domains/claim.ts";
export { CHALLENGE_LABEL, verificationRecordOf, type VerificationRecord } from "./domains/verification.ts";
export { createTxtLookup, DEFAULT_DNS_TIMEOUT_MS, type TxtLookup, type TxtLookupOptions } from "./domains/lookup-txt.ts";
export { RECORD_NOT_FOUND, verifyDomain } from "./domains/verify-domain.ts";
export { CreateSpaceInput, UpdateSpaceInput, ListSpacesInput } from "./spaces/schemas.ts";
export { createSpace, deleteSpace, getSpace, listSpaces, updateSpace } from "./spaces/spaces.ts";
export { type Space } from "./spaces/space-columns.ts";
export { CreatePixelInput, UpdatePixelInput, ListPixelsInput } from "./pixels/schemas.ts";
export { createPixel, deletePixel, getPixel, listPixels, updatePixel } from "./pixels/pixels.ts";
export { type Pixel } from "./pixels/pixel-columns.ts";
export { CreateLinkInput, UpdateLinkInput, ListLinksInput, MAX_TARGETS } from "./links/schemas.ts";
export { BulkDeleteLinksInput, BulkUpdateLinksInput, MAX_BULK_IDS } from "./links/schemas.ts";
export { bulkDeleteLinks } from "./links/bulk-delete-links.ts";
export { bulkUpdateLinks } from "./links/bulk-update-links.ts";
export { createLink } from "./links/create-link.ts";
export { updateLink } from "./links/update-link.ts";
export { deleteLink } from "./links/delete-link.ts";
export { getLink } from "./links/get-link.ts";
export { listLinks } from "./links/list-links.ts";
export { listTags, type TagCount } from "./links/list-tags.ts";
export { claimHealthChecks, type ClaimedHealthCheck } from "./health/claim-health-checks.ts";
export { recordHealthResults, type HealthResult } from "./health/record-health-results.ts";
export { countLinksForHealth } from "./health/health-population.ts";
export { LINK_HEALTH, type LinkHealth } from "@shortener/vocabulary";
export { MAX_TAGS, MAX_TAG_LENGTH } from "./links/tags.ts";
export { MAX_UTM_LENGTH, UTM_FIELDS, utmOf, type UtmField } from "./links/utm.ts";
export { MAX_OG_DESCRIPTION_LENGTH, MAX_OG_TITLE_LENGTH, OG_FIELDS, type OgField, type OpenGraph } from "./links/open-graph.ts";
export { type Link } from "./links/link-columns.ts";
export { isLinkExpired, linkStatus, linkStatusSql, LINK_STATUS, type LinkStatus, type StatusFields } from "./expiration/link-status.ts";
export { admitClicks, admittedCounts, isClickLimited, isClickLimitReached, noteAdmission, type Admission, type ClickCounter } from "./expiration/click-limit.ts";
export { countLimitedClicks } from "./expiration/count-limited-clicks.ts";
export { findLinkForVisit, type VisitLink } from "./visits/visit-link.ts";
export { gateVisit, type VisitGate } from "./visits/decide-visit.ts";
export { chooseDestination, isWeightedRotation, weightedIndex, mergeQuery, parseAcceptLanguage, type TargetedLink, type VisitTraits } from "./targeting/choose-destination.ts";
export { TARGET_TYPES, visitorFactsFor, type LinkTargets, type TargetType, type VisitorFacts } from "./targeting/target-types.ts";
export { recordClicks, rollupRowsOf, visitorsOf, type Click } from "./visits/record-clicks.ts";
export {
  agentDigest,
  dropPastVisitorDays,
  findOrCreateVisitorSalt,
  nextUtcDayStart,
  utcDay,
  VISITOR_DAY_GRACE_MS,
  visitorHash,
  visitorKey,
  type AgentDigest,
  type VisitorKey,
  type VisitorSalt,
} from "./visits/visitor-salts.ts";
export { MAX_ORPHAN_ALIAS, orphanAliasValue, recordDomainVisits, type DomainVisit } from "./visits/record-domain-visits.ts";
export {
  CLICK_DEFAULT_PARTITION,
  CLICK_PARTITION_MONTHS_AHEAD,
  clickPartitionName,
  dropExpiredClickPartitions,
  ensureClickPartitions,
  listClickPartitions,
  type ClickPartition,
} from "./visits/click-partitions.ts";
export {
  GetStatsInput,
  StatsRangeInput,
  LinkStatsQueryInput,
  StatsSummaryInput,
  AccountStatsInput,
  DomainVisitsInput,
  LINK_STATS_NAMES,
  ACCOUNT_STATS_NAMES,
  DOMAIN_VISITS_NAMES,
  TOP_ROWS,
  type AccountStatsName,
  type DomainVisitsName,
  type RankedDimension,
  STAT_NAMES,
  STAT_DIMENSIONS,
  MAX_DAILY_DAYS,
  MAX_HOURLY_DAYS,
  DEFAULT_STATS_DAYS,
  isCalendarDate,
  type StatName,
  type StatDimensionName,
} from "./stats/schemas.ts";
export { getStats, type StatsPage } from "./stats/get-stats.ts";
export { getStatsSummary, type StatsSummary } from "./stats/get-stats-summary.ts";
export { getAccountStats, type AccountStats } from "./stats/get-account-stats.ts";
export { getDomainVisits, type DomainVisits, type DomainVisitsSummary } from "./stats/get-domain-visits.ts";
export { buildStatsReport, OTHER_VALUE, PUBLIC_TOP_VALUES, type StatsReport } from "./stats/build-stats-report.ts";
export { findStatsLink, type StatsLink } from "./stats/find-stats-link.ts";
export { UNKNOWN_VALUE, type FoldedValues, type StatRow } from "./stats/read-series.ts";
export { type StatsRange } from "./stats/range.ts";
export { CreateImportInput, ListImportsInput, IMPORT_COLUMNS, IMPORT_STATUSES, type ImportStatus } from "./imports/schemas.ts";
export { type ImportJob, type RowError, JOB_ERRORS_SHOWN } from "./imports/import-job.ts";
export { createImport, SOURCE_PART_CHARS } from "./imports/create-import.ts";
export { getImport, streamImportErrors } from "./imports/get-import.ts";
export { listImports } from "./imports/list-imports.ts";
export { checkImportHeader } from "./imports/import-header.ts";
export {
  checkExportHeader,
  EXPORT_FORMATS,
  exportHeaderKey,
  IMPORT_FORMATS,
  importFileReading,
  isImportFormat,
  SOURCE_DOMAIN_COLUMN,
  splitShortUrl,
  type ExportFormat,
  type ExportCells,
  type ImportFileReading,
  type ImportFormat,
} from "./imports/formats/index.ts";
export { checkImportRow, toLinkInput, type CheckedRow, type ImportFields, type ImportRow } from "./imports/check-import-row.ts";
export { loadImportScope, type ImportScope } from "./imports/import-scope.ts";
export { importKeyOf, ImportGoneError, type BatchOutcome, type SourceCheckpoint } from "./imports/write-import-batch.ts";
export { MIGRATION_COLUMNS, readRowExtensions, type MigrationColumn, type RowExtensions } from "./imports/import-extensions.ts";
export {
  checkImport,
  claimImport,
  completeImport,
  DEFAULT_BATCH_SIZE,
  failImport,
  failStaleUploads,
  findImportsToResume,
  findOpenImportByKeyPrefix,
  setImportTotalRows,
  streamImportSource,
  runImport,
  runImportBatches,
  type ImportBatch,
  type ClaimedImport,
  type ImportTotals,
  type RunImportOptions,
} from "./imports/run-import.ts";
export { type EventData } from "./context.ts";
export { CreateWebhookInput, UpdateWebhookInput, ListWebhooksInput, ListWebhookDeliveriesInput, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhooks/schemas.ts";
export { type Webhook, MAX_WEBHOOKS_PER_USER } from "./webhooks/webhook.ts";
export { createWebhook, WEBHOOK_SECRET_PREFIX, type WebhookTargetOptions } from "./webhooks/create-webhook.ts";
export { updateWebhook } from "./webhooks/update-webhook.ts";
export { deleteWebhook } from "./webhooks/delete-webhook.ts";
export { getWebhook } from "./webhooks/get-webhook.ts";
export { listWebhooks } from "./webhooks/list-webhooks.ts";
export { listWebhookDeliveries, type WebhookAttempt } from "./webhooks/list-webhook-deliveries.ts";
export { addressKindPhrase, refusedAddressKind, refusedTargetReason, isLocalhostName } from "./webhooks/addresses.ts";
export { hasSubscribers, recordEvent } from "./webhooks/record-event.ts";
export { drainWebhookEvents } from "./webhooks/drain-events.ts";
export { findPendingDeliveries, findDueWebhooks, pruneWebhookDeliveries, type PendingDelivery, type WebhookQueue } from "./webhooks/pending-deliveries.ts";
export { recordWebhookAttempt, type AttemptRecord } from "./webhooks/record-attempt.ts";
export { DEFAULT_RETRY_POLICY, nextAttemptAt, type RetryPolicy } from "./webhooks/retry-policy.ts";
export { domainUrlOf, shortUrlOf, type UrlScheme } from "./links/short-url.ts";
export { QrOptionsInput, QR_ECC_LEVELS, QR_FORMATS, QR_MAX_MARGIN, QR_MAX_SIZE, QR_MIN_SIZE, type QrEcc, type QrFormat, type QrOptions } from "./qr/schemas.ts";
export { renderQr, type QrImage } from "./qr/render-qr.ts";
export { createQrCache, DEFAULT_QR_CACHE, type QrCache, type QrCacheOptions } from "./qr/qr-cache.ts";
export { EXPORT_INCLUDES, ExportLinksInput, ExportLinksPageInput, EXPORT_PAGE_MAX } from "./links/schemas.ts";
export { EARLIER_EXPORT_COLUMNS, EXPORT_COLUMNS, EXPORT_HEALTH_COLUMNS, exportLinksPage, streamLinkExport, type ExportColumn, type ExportPage, type ExportRow } from "./links/export-links.ts";
export { type ImportColumn } from "./imports/schemas.ts";
export { AUDIT_SECRET_FIELDS, auditChanges, recordAudit, REDACTED, type AuditActor, type AuditChanges, type AuditEntry } from "./audit/record-audit.ts";
export { ExportAuditInput, ListAuditInput } from "./audit/schemas.ts";
export { AUDIT_EXPORT_PAGE, listAudit, streamAuditExport, type AuditRecord } from "./audit/list-audit.ts";
export { AUDIT_RETENTION_BATCH, deleteExpiredAuditEntries } from "./audit/delete-expired-audit.ts";
