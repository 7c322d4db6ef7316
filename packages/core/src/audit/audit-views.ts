import type { Domain, DomainDetail } from "../domains/domain-columns.ts";
import { sha256 } from "../secrets/hash.ts";
import type { ImportJob } from "../imports/import-job.ts";
import type { Link } from "../links/link-columns.ts";
import type { Pixel } from "../pixels/pixel-columns.ts";
import type { Space } from "../spaces/space-columns.ts";
import type { ApiKey } from "../users/named-key.ts";
import type { Webhook } from "../webhooks/webhook.ts";

/*
 * The objects as the audit log records them (CONTRACT §24): the fields a caller can change, under the
 * API's field names (CONTRACT §3), so an entry reads like the API's JSON. What changes by itself (clicks,
 * status, the rotation's turn, `updated_at`) is left out: an entry says what someone changed. A secret is
 * a boolean here (set or not), never its value; record-audit.ts writes a set one as "[redacted]".
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const entries = (targets: Array<{ key?: string; value: string }> | null) => (targets?.length ? targets : null);

/** What a link's view reads: a link, or a new link's values before its insert (create-link.ts). */
export type LinkAuditSource = Pick<
  Link,
  | "alias"
  | "url"
  | "title"
  | "targetType"
  | "countryTarget"
  | "platformTarget"
  | "languageTarget"
  | "rotationTarget"
  | "disabled"
  | "privacy"
  | "hasPassword"
  | "hasPrivacyPassword"
  | "expirationUrl"
  | "expirationClicks"
  | "endsAt"
  | "tags"
  | "ogTitle"
  | "ogDescription"
  | "ogImage"
> & { domain: { id: number }; space: { id: number } | null; pixels: ReadonlyArray<{ id: number }> };

export function linkAuditView(l: LinkAuditSource): Record<string, unknown> {
  return {
    alias: l.alias,
    url: l.url,
    title: l.title,
    domain_id: l.domain.id,
    space_id: l.space?.id ?? null,
    pixel_ids: l.pixels.map((p) => p.id),
    target_type: l.targetType,
    country_target: entries(l.countryTarget),
    platform_target: entries(l.platformTarget),
    language_target: entries(l.languageTarget),
    rotation_target: l.rotationTarget?.length ? l.rotationTarget.map((e) => ({ value: e.value, weight: e.weight ?? null })) : null,
    disabled: l.disabled ? 1 : 0,
    privacy: l.privacy,
    password: l.hasPassword,
    privacy_password: l.hasPrivacyPassword,
    expiration_url: l.expirationUrl,
    expiration_clicks: l.expirationClicks,
    ends_at: iso(l.endsAt),
    tags: l.tags,
    og_title: l.ogTitle,
    og_description: l.ogDescription,
    og_image: l.ogImage,
  };
}

/**
 * A domain: its pages and whether it is verified (not its verification token: that is published in DNS,
 * and no change of anyone's), and its app-link files (CONTRACT §25) as their size and digest — up to
 * 64 KiB each, a copy in every entry would be the bulk of the log; the digest says whether one changed.
 */
export function domainAuditView(d: Domain & Partial<Pick<DomainDetail, "appleAppSiteAssociation" | "assetLinks">>): Record<string, unknown> {
  return {
    name: d.name,
    index_page: d.indexPage,
    not_found_page: d.notFoundPage,
    verified: d.verifiedAt !== null,
    apple_app_site_association: fileDigest(d.appleAppSiteAssociation),
    asset_links: fileDigest(d.assetLinks),
  };
}

/** `"1234 bytes, sha256 0123456789abcdef"` (the digest's first 16 hex digits), or null for a file not set. */
function fileDigest(text: string | null | undefined): string | null {
  return text ? `${Buffer.byteLength(text, "utf8")} bytes, sha256 ${sha256(text).slice(0, 16)}` : null;
}

export function spaceAuditView(s: Space): Record<string, unknown> {
  return { name: s.name, color: s.color };
}

export function pixelAuditView(p: Pixel): Record<string, unknown> {
  return { name: p.name, type: p.type, value: p.value };
}

/** A webhook; `secret` (whether it has one: always) only on its create, redacted. */
export function webhookAuditView(w: Webhook, options: { hasSecret?: boolean } = {}): Record<string, unknown> {
  return { url: w.url, events: [...w.events], disabled: w.disabled ? 1 : 0, ...(options.hasSecret ? { secret: true } : {}) };
}

/** A named key: its name, scopes and expiry — never the key, its hash or its prefix. */
export function apiKeyAuditView(k: Pick<ApiKey, "name" | "scopes" | "expiresAt">): Record<string, unknown> {
  return { name: k.name, scopes: [...k.scopes], expires_at: iso(k.expiresAt) };
}

/** An import job's state: its counts, never its rows. */
export function importAuditView(j: ImportJob): Record<string, unknown> {
  return {
    status: j.status,
    domain_id: j.defaultDomainId,
    total_rows: j.totalRows,
    processed_rows: j.processedRows,
    created_rows: j.createdRows,
    skipped_rows: j.skippedRows,
    failed_rows: j.failedRows,
    failure_reason: j.failureReason,
  };
}
