export * from "./errors.ts";
export { withTransaction, type Actor, type Ctx, type Role, type SystemCtx } from "./context.ts";
export { parseInput, toFieldErrors } from "./shared/validation.ts";
export { IdInput } from "./shared/id-input.ts";
export { PER_PAGE_VALUES, type Page } from "./shared/pagination.ts";
export { hashPassword, verifyPassword, sha256 } from "./shared/hash.ts";
export { randomBase62 } from "./shared/random.ts";
export { API_KEY_PREFIX, authenticateApiKey, generateApiKey, issueApiKey, type Authenticated } from "./users/api-keys.ts";
export { CreateUserInput, ListUsersInput, UserIdInput } from "./users/schemas.ts";
export { createUser, deleteUser, findUserByEmail, getAccount, listUsers, rotateApiKey, type User } from "./users/users.ts";
export { bootstrap, type BootstrapResult } from "./setup/bootstrap.ts";
export { getOrCreateSetting, resolveSecret } from "./setup/settings.ts";
export { findDomainByHost, hostCandidates, type ServedDomain } from "./domains/find-domain-by-host.ts";
export { CHANGES_CHANNEL, notifyChange, onLocalChange, type Change } from "./shared/changes.ts";
export { checkUrl, normalizeDomainName, isLocalOrIp, MAX_URL_LENGTH } from "./shared/url.ts";
export { COUNTRY_CODES, LANGUAGE_CODES, PLATFORMS, PIXEL_TYPES, RESERVED_ALIASES, type Platform, type PixelType } from "./shared/codes.ts";
export { CreateDomainInput, UpdateDomainInput, ListDomainsInput } from "./domains/schemas.ts";
export { createDomain, deleteDomain, getDomain, listDomains, updateDomain, type Domain } from "./domains/domains.ts";
export { CreateSpaceInput, UpdateSpaceInput, ListSpacesInput } from "./spaces/schemas.ts";
export { createSpace, deleteSpace, getSpace, listSpaces, updateSpace, type Space } from "./spaces/spaces.ts";
export { CreatePixelInput, UpdatePixelInput, ListPixelsInput } from "./pixels/schemas.ts";
export { createPixel, deletePixel, getPixel, listPixels, updatePixel, type Pixel } from "./pixels/pixels.ts";
export { CreateLinkInput, UpdateLinkInput, ListLinksInput, TARGET_TYPES, MAX_TARGETS } from "./links/schemas.ts";
export { createLink, RANDOM_ALIAS_LENGTH } from "./links/create-link.ts";
export { updateLink } from "./links/update-link.ts";
export { deleteLink } from "./links/delete-link.ts";
export { getLink } from "./links/get-link.ts";
export { listLinks } from "./links/list-links.ts";
export { type Link } from "./links/load-links.ts";
export { isLinkExpired, linkStatus, linkStatusSql, LINK_STATUS, type LinkStatus, type StatusFields } from "./links/status.ts";
export { findLinkForVisit, type VisitLink } from "./visits/visit-link.ts";
export { gateVisit, isClickLimited, type VisitGate } from "./visits/decide-visit.ts";
export { chooseDestination, mergeQuery, parseAcceptLanguage, type TargetedLink, type VisitTraits } from "./targeting/choose-destination.ts";
export { countLimitedClicks, recordClicks, rollupRowsOf, pgArray, type Click } from "./visits/record-clicks.ts";
export { GetStatsInput, StatsRangeInput, STAT_NAMES, STAT_DIMENSIONS, MAX_DAILY_DAYS, MAX_HOURLY_DAYS, DEFAULT_STATS_DAYS, isCalendarDate, type StatName, type StatDimensionName } from "./stats/schemas.ts";
export { getStats, type StatsPage } from "./stats/get-stats.ts";
export { buildStatsReport, OTHER_VALUE, PUBLIC_TOP_VALUES, type StatsReport } from "./stats/build-stats-report.ts";
export { findStatsLink, type StatsLink } from "./stats/find-stats-link.ts";
export { UNKNOWN_VALUE, type FoldedValues, type StatRow } from "./stats/read-series.ts";
export { type StatsRange } from "./stats/range.ts";
export { CreateImportInput, ListImportsInput, IMPORT_COLUMNS, IMPORT_STATUSES, type ImportStatus } from "./imports/schemas.ts";
export { type ImportJob, type RowError, JOB_ERRORS_SHOWN } from "./imports/import-job.ts";
export { createImport, SOURCE_PART_CHARS } from "./imports/create-import.ts";
export { getImport, streamImportErrors } from "./imports/get-import.ts";
export { listImports } from "./imports/list-imports.ts";
export { ERRORS_CSV_HEADER, formatErrorsCsv, toCsvCell } from "./imports/errors-csv.ts";
export { checkImportRow, toLinkInput, type CheckedRow, type ImportRow } from "./imports/check-import-row.ts";
export { loadImportScope, type ImportScope } from "./imports/import-scope.ts";
export { importKeyOf, ImportGoneError, type BatchOutcome } from "./imports/write-import-batch.ts";
export {
  checkImport,
  claimImport,
  completeImport,
  DEFAULT_BATCH_SIZE,
  failImport,
  failStaleUploads,
  findImportsToResume,
  streamImportSource,
  runImport,
  type ClaimedImport,
  type ImportTotals,
  type RunImportOptions,
} from "./imports/run-import.ts";
