import { z } from "zod";
import { API_KEY_SCOPES, IMPORT_FORMATS, LINK_HEALTH, PIXEL_TYPES, WEBHOOK_EVENT_TYPES } from "@shortener/core";

/*
 * The JSON the REST API answers (CONTRACT §2, §3), as zod schemas: the OpenAPI document is generated
 * from them. Strict objects, so a field the serialisers add without adding it here fails the tests
 * that validate live responses against the document (openapi.db.test.ts); test/openapi-schemas.test.ts
 * also checks the field names against the serialisers at compile time.
 */

const Id = z.int().min(1).max(2_147_483_647);
const Timestamp = z.iso.datetime().describe("ISO-8601 UTC, e.g. 2026-11-22T10:00:00.000Z");

export const DomainJson = z.strictObject({
  id: Id,
  name: z.string().describe("Lower-case host name or IPv4, with an optional :port; IDN as punycode"),
  url: z.string().describe("scheme + :// + name"),
  index_page: z.string().nullable(),
  not_found_page: z.string().nullable(),
  verified: z.boolean().describe("whether the domain serves: an admin's domain is verified at once, another user's once its TXT record is found (POST /domains/{id}/verify)"),
  verification: z
    .strictObject({
      type: z.literal("TXT"),
      name: z.string().describe("_shortener-challenge. + the host without its port"),
      value: z.string().describe("shortener-verify= + the domain's token"),
    })
    .nullable()
    .describe("the DNS record to publish while unverified; null once verified. In a link's `domain`, null also for a key without the domains:read scope (and in webhook payloads)"),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** A domain as the domain endpoints answer it: with its app-link files (CONTRACT §25). */
export const DomainDetailJson = DomainJson.extend({
  apple_app_site_association: z
    .string()
    .nullable()
    .describe("JSON text (an object) served at https://{name}/.well-known/apple-app-site-association as application/json; null: not set (that path answers 404)"),
  asset_links: z.string().nullable().describe("JSON text (an array) served at https://{name}/.well-known/assetlinks.json as application/json; null: not set (that path answers 404)"),
});

export const SpaceJson = z.strictObject({ id: Id, name: z.string(), color: z.int().min(1).max(6), created_at: Timestamp, updated_at: Timestamp });

const PixelType = z.enum(PIXEL_TYPES);
export const PixelJson = z.strictObject({ id: Id, name: z.string(), type: PixelType, value: z.string(), created_at: Timestamp, updated_at: Timestamp });

const KeyedTarget = z.strictObject({ key: z.string(), value: z.string() });
const Targets = z.array(KeyedTarget).nullable().describe("null when the group is empty");

export const LinkJson = z.strictObject({
  id: Id,
  alias: z.string(),
  url: z.string(),
  short_url: z.string().describe("the domain's url + / + alias"),
  title: z.string().nullable(),
  target_type: z.literal([0, 1, 2, 3, 4]).describe("0 none, 1 country, 2 platform, 3 language, 4 rotation"),
  country_target: Targets,
  platform_target: Targets,
  language_target: Targets,
  rotation_target: z.array(z.strictObject({ value: z.string(), weight: z.int().min(1).max(100).nullable().describe("null: round-robin, no weights") })).nullable(),
  last_rotation: z.int().nullable(),
  disabled: z.literal([0, 1]),
  privacy: z.literal([0, 1, 2]).describe("0 public stats, 1 owner only, 2 password"),
  privacy_password: z.boolean().describe("whether a stats password is set"),
  password: z.boolean().describe("whether a password is set"),
  expiration_url: z.string().nullable(),
  expiration_clicks: z.int().min(0).describe("0: no limit"),
  expiration_date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable(),
  expiration_time: z
    .string()
    .regex(/^\d{2}:\d{2}$/)
    .nullable(),
  ends_at: Timestamp.nullable(),
  clicks: z.int().min(0),
  status: z.literal([1, 2, 3]).describe("1 active, 2 expired, 3 disabled"),
  space: z.strictObject({ id: Id, name: z.string(), color: z.int() }).nullable(),
  domain: DomainJson,
  pixels: z.array(z.strictObject({ id: Id, name: z.string(), type: PixelType, value: z.string() })),
  tags: z.array(z.string()).describe("the link's tags, [] when none"),
  utm_source: z.string().nullable().describe("read back from url's query: null when url has no such parameter"),
  utm_medium: z.string().nullable(),
  utm_campaign: z.string().nullable(),
  utm_term: z.string().nullable(),
  utm_content: z.string().nullable(),
  og_title: z.string().nullable().describe("the title link-preview bots are shown (Open Graph); null: not set"),
  og_description: z.string().nullable().describe("the description link-preview bots are shown; null: not set"),
  og_image: z.string().nullable().describe("the http(s) URL of the preview's image; null: not set"),
  health: z
    .enum(LINK_HEALTH)
    .describe("the destination's health as the worker last found it (about once a day): ok, broken, or unchecked (not looked at yet, the url changed since, or a private address)"),
  health_reason: z
    .string()
    .nullable()
    .describe("why it is broken (`HTTP 404`, `timeout`, `DNS`, `TLS`, `connection refused`, `too many redirects`, …) or unchecked (`private address`); null when ok or never looked at"),
  health_checked_at: Timestamp.nullable().describe("when the worker last looked at the destination; null: never, or not since the url changed"),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const WebhookEvent = z.enum(WEBHOOK_EVENT_TYPES);

export const WebhookJson = z.strictObject({
  id: Id,
  url: z.string().describe("where deliveries are POSTed"),
  events: z.array(WebhookEvent).min(1),
  disabled: z.literal([0, 1]).describe("1: nothing is sent; set by the service after 3 days of failures"),
  failing_since: Timestamp.nullable().describe("when the current run of failed attempts began; null after a success"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const CreatedWebhookJson = WebhookJson.extend({ secret: z.string().describe("the signing secret (whsec_…), shown once") });

export const WebhookAttemptJson = z.strictObject({
  id: Id,
  delivery_id: z.int().min(1).describe("the payload's id and the Shortener-Delivery header"),
  event: WebhookEvent,
  attempt: z.int().min(1).describe("1 for the delivery's first try"),
  status: z.enum(["succeeded", "failed"]).describe("this attempt's outcome: a 2xx within 10 s succeeded"),
  response_code: z.int().nullable().describe("null when no response came (refused target, timeout, connection error)"),
  duration_ms: z.int().min(0),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe("the first 1,024 characters of the response"),
  next_try_at: Timestamp.nullable().describe("when the delivery is tried again; null once delivered or given up"),
  delivery_status: z.enum(["pending", "delivered", "failed"]),
  created_at: Timestamp,
});

/** One row of a statistics series (CONTRACT §8, §21): a day, an hour or a value, and its clicks (humans). */
/** A tag of the workspace and how many of its links carry it (CONTRACT §25). */
export const TagJson = z.strictObject({ name: z.string(), count: z.int().min(1) });

export const StatRowJson = z.strictObject({
  value: z
    .string()
    .describe("YYYY-MM-DD (clicks), YYYY-MM-DDTHH:00Z (clicks_hour), the link's short_url (links), or the value counted (a country code, a platform, a bot's name, an unknown alias, …)"),
  id: Id.optional().describe("links only: the link's id"),
  count: z.int().min(0).describe("clicks by people (bots are never clicks); for a domain's alias rows, visits to that unknown alias"),
  unique: z.int().min(0).optional().describe("clicks only (links and accounts): the day's unique visitors"),
  bots: z.int().min(0).optional().describe("clicks and clicks_hour only: visits by bots that day or hour"),
});

/** `name=summary` of a link or an account (CONTRACT §21). */
export const StatsSummaryJson = z.strictObject({
  clicks: z.int().min(0).describe("clicks by people in the range"),
  unique_visitors: z.int().min(0).describe("the sum of each day's unique visitors (a visitor seen on two days counts twice)"),
  bots: z.int().min(0).describe("visits by bots in the range, never counted as clicks"),
  imported_clicks: z.int().min(0).describe("how many of `clicks` were carried over from another service by a migration (in the days it reported); 0 otherwise"),
  first_click_at: Timestamp.nullable().describe(
    "the first click by a person in the range: exact while raw clicks are kept, else the start of its hour (links) or day (accounts, links deleted since); null without clicks",
  ),
  last_click_at: Timestamp.nullable().describe("the last click by a person in the range, with the same precision; null without clicks"),
});

/** `name=summary` of a domain's orphan visits (CONTRACT §21). */
export const DomainVisitsSummaryJson = z.strictObject({
  index: z.int().min(0).describe("people visiting the domain's /"),
  not_found: z.int().min(0).describe("people visiting an alias the domain does not have"),
  disabled: z.int().min(0).describe("people visiting a disabled link"),
  expired: z.int().min(0).describe("people visiting an expired link"),
  bots: z.int().min(0).describe("bots visiting any of those"),
});

const ImportStatus = z.enum(["queued", "running", "completed", "failed"]);
/** An import job (CONTRACT §12); `errors` (the first 1000 row errors) only where one job is shown. */
export const ImportJson = z.strictObject({
  id: Id,
  status: ImportStatus,
  domain_id: Id.nullable().describe("the default domain of rows that name none"),
  format: z.enum(IMPORT_FORMATS).describe("how the file is read: csv, or another service's own export (docs/migrating.md)"),
  total_rows: z.int().min(0),
  processed_rows: z.int().min(0),
  created_rows: z.int().min(0),
  skipped_rows: z.int().min(0),
  failed_rows: z.int().min(0),
  failure_reason: z.string().nullable().describe("why the whole file failed, if it did"),
  errors: z
    .array(z.strictObject({ line: z.int().min(1), field: z.string(), message: z.string() }))
    .optional()
    .describe("the first 1000 row errors (GET /imports/{id} only)"),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
});

export const UserJson = z.strictObject({ id: Id, name: z.string(), email: z.string(), role: z.enum(["admin", "user"]), created_at: Timestamp });
export const CreatedUserJson = UserJson.extend({ api_key: z.string().describe("shown once") });

/** CONTRACT §24: the roles of a workspace, weakest first. */
const Role = z.enum(["viewer", "editor", "admin", "owner"]);
/** A workspace as its member sees it: with their role there. */
export const WorkspaceJson = z.strictObject({
  id: Id,
  name: z.string(),
  personal: z.boolean().describe("the user's personal workspace: deleted only with them"),
  require_sso: z.boolean().describe("members act here only from a dashboard session opened with single sign-on"),
  role: Role.describe("the caller's role here"),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** `GET /account`: phpShort's fields, and the workspace the key acts in. */
export const AccountJson = UserJson.extend({ workspace: WorkspaceJson });
export const MemberJson = z.strictObject({ id: Id.describe("the user's id"), name: z.string(), email: z.string(), role: Role, joined_at: Timestamp });
export const InvitationJson = z.strictObject({
  id: Id,
  role: Role,
  email: z.string().nullable().describe("whom it was mailed to; null: a link handed over by other means"),
  status: z.enum(["pending", "accepted", "expired"]),
  created_by: Id.nullable(),
  created_at: Timestamp,
  expires_at: Timestamp,
  accepted_at: Timestamp.nullable(),
  accepted_by: Id.nullable(),
});
export const CreatedInvitationJson = InvitationJson.extend({
  token: z.string().describe("shown this once; stored as its SHA-256"),
  url: z.string().describe("the one-time link: {base_url}/app/invite/{token}"),
  mailed: z.boolean().describe("whether the mail was handed to SMTP_URL's server (false without an email, without SMTP_URL, or on a failure)"),
});
export const ApiKeyJson = z.strictObject({ api_key: z.string().describe("shown once; the key of the request is revoked") });
/** CONTRACT §17: a named, scoped key; the secret (`api_key`) only in the answer to its creation. */
export const NamedApiKeyJson = z.strictObject({
  id: Id,
  name: z.string(),
  prefix: z.string().length(8).describe("the key's first 8 characters, to tell keys apart"),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  expires_at: Timestamp.nullable(),
  last_used_at: Timestamp.nullable().describe("written at most once a minute"),
  created_at: Timestamp,
  created_by: z.strictObject({ id: Id, name: z.string(), email: z.string() }).describe("who made it: the key acts with their role in the workspace"),
});
export const CreatedNamedApiKeyJson = NamedApiKeyJson.extend({ api_key: z.string().describe("the secret, shown this once") });

/** CONTRACT §2 envelopes. */
/** One audit entry (CONTRACT §24, docs/audit.md). */
export const AuditEntryJson = z.strictObject({
  id: z.int().min(1),
  action: z.string().describe("object.verb: link.created, link.bulk_updated, domain.verified, api_key.rotated, import.finished…"),
  object_type: z.string().describe("link, domain, space, pixel, webhook, api_key, import, user…"),
  object_id: z.union([z.int(), z.string()]).nullable().describe("the object's id (an integer for the API's objects)"),
  actor_user_id: z.int().nullable().describe("who: the user (null when unknown, e.g. an import finished by the worker after its maker's entry expired)"),
  actor_key_id: z.int().nullable().describe("the API key the request came with, or null"),
  actor_session_id: z.int().nullable().describe("the dashboard session the request came with, or null"),
  client_group: z.string().nullable().describe("the client's address group (IPv4 address, or IPv6 /64); null without a request"),
  changes: z
    .record(z.string(), z.strictObject({ before: z.unknown().optional(), after: z.unknown().optional() }))
    .describe('each changed field under the API\'s name, with its value before and after (no before on a create, no after on a delete); secrets as "[redacted]"'),
  created_at: Timestamp,
});

export const oneEnvelope = <T extends z.ZodType>(item: T) => z.strictObject({ data: item, status: z.literal(200) });
export const createdEnvelope = <T extends z.ZodType>(item: T) => z.strictObject({ data: item, status: z.literal(201) });
export const acceptedEnvelope = <T extends z.ZodType>(item: T) => z.strictObject({ data: item, status: z.literal(202) });

const PageUrl = z.string().describe("absolute URL keeping every filter of the request");
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    data: z.array(item),
    links: z.strictObject({ first: PageUrl, last: PageUrl, prev: PageUrl.nullable(), next: PageUrl.nullable() }),
    meta: z.strictObject({
      current_page: z.int().min(1),
      from: z.int().min(1).nullable(),
      last_page: z.int().min(1),
      path: z.string(),
      per_page: z.int(),
      to: z.int().min(1).nullable(),
      total: z.int().min(0),
    }),
    status: z.literal(200),
  });

export const deletedEnvelope = (object: "link" | "domain" | "space" | "pixel" | "user" | "webhook" | "api_key" | "workspace" | "member" | "invitation") =>
  z.strictObject({ id: Id, object: z.literal(object), deleted: z.literal(true), status: z.literal(200) });

/** CONTRACT §17: the answer of `DELETE /links?ids=…`, one entry per deleted link. */
export const bulkDeletedEnvelope = (object: "link") => z.strictObject({ data: z.array(z.strictObject({ id: Id, object: z.literal(object), deleted: z.literal(true) })), status: z.literal(200) });

export const ErrorJson = z.strictObject({
  message: z.string(),
  code: z
    .string()
    .describe(
      "unauthenticated, forbidden (also a key without the operation's scope), not_found, method_not_allowed, payload_too_large, unsupported_media_type, rate_limited, internal_error, bad_request",
    ),
  status: z.int(),
});

export const ValidationErrorJson = z.strictObject({
  message: z.record(z.string(), z.array(z.string())).describe("every failing field with its sentences; nested fields joined by dots (country.0.key)"),
  code: z.literal("validation_failed"),
  status: z.literal(422),
});
