import { domainUrlOf, hasScope, utmOf, shortUrlOf, verificationRecordOf, type Domain, type DomainDetail, type Link, type Pixel, type Scope, type Space } from "@shortener/core";
import type { ApiConfig } from "../deps.ts";

/**
 * REST's and tRPC's JSON for each resource (CONTRACT §3): snake_case, typed values, null when not set.
 * `forScopes` gives the serialisers for a key with those scopes: a link's embedded `domain` carries its
 * `verification` record (the DNS token that proves a claim) only for a key with `domains:read`, which
 * the domain endpoints need; to any other caller — a `links:read` key, a webhook's receiver — it is
 * `null` (`verified` still tells whether the domain serves). The serialisers `createSerializers`
 * returns are that withholding set: a caller that forgets to pick gives away nothing.
 */
export type Serializers = ReturnType<typeof buildSerializers> & { forScopes(scopes: readonly Scope[]): Serializers };

const iso = (d: Date) => d.toISOString();

export function createSerializers(config: Pick<ApiConfig, "shortUrlScheme">): Serializers {
  const forScopes = (scopes: readonly Scope[]): Serializers => (hasScope(scopes, "domains:read") ? withDomainSecrets : withheld);
  const withDomainSecrets: Serializers = { ...buildSerializers(config, { isVerificationInLinks: true }), forScopes };
  const withheld: Serializers = { ...buildSerializers(config, { isVerificationInLinks: false }), forScopes };
  return withheld;
}

function buildSerializers(config: Pick<ApiConfig, "shortUrlScheme">, view: { isVerificationInLinks: boolean }) {
  const domainUrl = (name: string) => domainUrlOf(name, config.shortUrlScheme);

  /** `short_url` of a link on the named domain (the visitor side's QR codes encode the same). */
  const shortUrl = (domainName: string, alias: string) => shortUrlOf(domainName, alias, config.shortUrlScheme);

  const domain = (d: Domain) => ({
    id: d.id,
    name: d.name,
    url: domainUrl(d.name),
    index_page: d.indexPage,
    not_found_page: d.notFoundPage,
    verified: d.verifiedAt !== null,
    verification: verificationRecordOf(d),
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  });

  /**
   * A domain as the domain endpoints answer it: with its app-link files (CONTRACT §25), the JSON text as
   * stored, null when not set. A link's embedded `domain` is the plain one.
   */
  const domainDetail = (d: DomainDetail) => ({
    ...domain(d),
    apple_app_site_association: d.appleAppSiteAssociation,
    asset_links: d.assetLinks,
  });

  const space = (s: Space) => ({ id: s.id, name: s.name, color: s.color, created_at: iso(s.createdAt), updated_at: iso(s.updatedAt) });

  const pixel = (p: Pixel) => ({ id: p.id, name: p.name, type: p.type, value: p.value, created_at: iso(p.createdAt), updated_at: iso(p.updatedAt) });

  const targets = (entries: Link["countryTarget"]) => (entries?.length ? entries.map((e) => ({ key: e.key ?? null, value: e.value })) : null);

  const link = (l: Link) => ({
    id: l.id,
    alias: l.alias,
    url: l.url,
    short_url: shortUrl(l.domain.name, l.alias),
    title: l.title,
    target_type: l.targetType,
    country_target: targets(l.countryTarget),
    platform_target: targets(l.platformTarget),
    language_target: targets(l.languageTarget),
    rotation_target: l.rotationTarget?.length ? l.rotationTarget.map((e) => ({ value: e.value, weight: e.weight ?? null })) : null,
    last_rotation: l.lastRotation,
    disabled: l.disabled ? (1 as const) : (0 as const),
    privacy: l.privacy,
    privacy_password: l.hasPrivacyPassword,
    password: l.hasPassword,
    expiration_url: l.expirationUrl,
    expiration_clicks: l.expirationClicks,
    expiration_date: l.endsAt ? iso(l.endsAt).slice(0, 10) : null,
    expiration_time: l.endsAt ? iso(l.endsAt).slice(11, 16) : null,
    ends_at: l.endsAt ? iso(l.endsAt) : null,
    clicks: l.clicks,
    status: l.status,
    space: l.space ? { id: l.space.id, name: l.space.name, color: l.space.color } : null,
    domain: view.isVerificationInLinks ? domain(l.domain) : { ...domain(l.domain), verification: null },
    pixels: l.pixels.map((p) => ({ id: p.id, name: p.name, type: p.type, value: p.value })),
    tags: l.tags,
    ...utmOf(l.url),
    og_title: l.ogTitle,
    og_description: l.ogDescription,
    og_image: l.ogImage,
    health: l.health,
    health_reason: l.healthReason,
    health_checked_at: l.healthCheckedAt ? iso(l.healthCheckedAt) : null,
    created_at: iso(l.createdAt),
    updated_at: iso(l.updatedAt),
  });

  return { domain, domainDetail, space, pixel, link, shortUrl };
}
