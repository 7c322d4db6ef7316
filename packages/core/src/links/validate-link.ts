import { and, eq, inArray, ne, or, sql } from "drizzle-orm";
import { domains, links, pgArray, pixels, preparedFor, spaces, type Db, type TargetEntry, type WebhookEventType } from "@shortener/db";
import { domainColumns, type Domain } from "../domains/domain-columns.ts";
import { hostCandidates } from "../domains/find-domain-by-host.ts";
import { addLoopErrors, checkNoLoops, countsAsServed } from "../domains/served.ts";
import { pixelColumns, type Pixel } from "../pixels/pixel-columns.ts";
import type { FieldErrors } from "../errors.ts";
import { ALIAS_TAKEN } from "./alias-conflict.ts";
import { checkOwnership } from "./ownership.ts";
import { GROUP_OF_TYPE, TARGET_GROUPS, type TargetGroup } from "../targeting/target-types.ts";
import { hostOf } from "../urls/url.ts";
import { addError } from "../validation/fields.ts";
import { hasSubscribers, subscribedSql } from "../webhooks/record-event.ts";

/** The values of the link-wide rules after a create or update would apply (sent values over stored ones). */
export type LinkDraft = {
  targetType: number;
  groups: Record<TargetGroup, TargetEntry[] | null>;
  privacy: number;
  hasPrivacyPassword: boolean;
};

/** Cross-field rules of CONTRACT §4 that need no database. */
export function checkDraft(draft: LinkDraft, errors: FieldErrors): void {
  const group = GROUP_OF_TYPE[draft.targetType];
  if (group && !draft.groups[group]?.length) {
    addError(errors, group, `The ${group} targets need at least one entry when the target type is ${draft.targetType}.`);
  }
  if (draft.privacy === 2 && !draft.hasPrivacyPassword) {
    addError(errors, "privacy_password", "The privacy password field is required when privacy is 2.");
  }
}

/**
 * The expiration moment from `expiration_date` / `expiration_time` (UTC). `undefined`: unchanged;
 * `null`: removed. On update, a lone time keeps the stored date and a lone date keeps the stored time.
 */
export function resolveEndsAt(sent: { expiration_date?: string | null; expiration_time?: string | null }, stored: Date | null, now: Date, errors: FieldErrors): Date | null | undefined {
  const { expiration_date: date, expiration_time: time } = sent;
  if (date === undefined && time === undefined) return undefined;
  if (date === null) return null;
  const storedDate = stored?.toISOString().slice(0, 10);
  const storedTime = stored?.toISOString().slice(11, 16);
  const day = date ?? storedDate;
  if (!day) {
    addError(errors, "expiration_time", "The expiration time needs an expiration date.");
    return undefined;
  }
  const at = new Date(`${day}T${time ?? (date !== undefined ? (storedTime ?? "00:00") : "00:00")}:00.000Z`);
  if (at.getTime() <= now.getTime()) {
    addError(errors, date !== undefined ? "expiration_date" : "expiration_time", "The expiration must be in the future.");
    return undefined;
  }
  return at;
}

/** Every destination URL a link would hold, with the field it came from (for the loop check). */
export function destinations(values: {
  url?: string | undefined;
  expiration_url?: string | null | undefined;
  country?: TargetEntry[] | null | undefined;
  platform?: TargetEntry[] | null | undefined;
  language?: TargetEntry[] | null | undefined;
  rotation?: TargetEntry[] | null | undefined;
}): Array<{ field: string; url: string }> {
  const out: Array<{ field: string; url: string }> = [];
  if (values.url) out.push({ field: "url", url: values.url });
  if (values.expiration_url) out.push({ field: "expiration_url", url: values.expiration_url });
  for (const group of TARGET_GROUPS) {
    values[group]?.forEach((entry, i) => out.push({ field: `${group}.${i}.value`, url: entry.value }));
  }
  return out;
}

/**
 * What the reference checks found: the rows a new link's answer needs, so it is not read back; and,
 * when asked (`announce`), whether one of the user's enabled webhooks subscribes to that event.
 */
export type References = { domain?: Domain; space?: { id: number; name: string; color: number }; pixels: Pixel[]; isAnnounced?: boolean };

const ph = { id: sql.placeholder("id"), workspaceId: sql.placeholder("workspaceId"), names: sql.placeholder("names") };

/** The domains a create or update reads: the caller's chosen one, and those served under a destination's host. */
function ownedOrServed() {
  return or(and(eq(domains.id, ph.id), eq(domains.workspaceId, ph.workspaceId)), and(sql`${domains.name} = any(${ph.names}::text[])`, countsAsServed(ph.workspaceId)));
}

/**
 * The checks against the database, all at once: ownership of domain, space and pixels (the rule is
 * `checkOwnership`; these queries are its loader), loops, alias.
 * The domain's ownership and the loop check are one prepared statement (the domains that are either
 * the caller's chosen one or served under a destination's host: verified, or the caller's), the other
 * checks run beside it. With `announce`, the same statement also says whether one of the user's
 * enabled webhooks subscribes to that event (a create asks, so it costs no round trip of its own).
 */
export async function checkReferences(
  db: Db,
  workspaceId: number,
  refs: {
    domainId?: number | undefined;
    spaceId?: number | null | undefined;
    pixelIds?: number[] | null | undefined;
    alias?: { domainId: number; alias: string; exceptLinkId?: number } | undefined;
    urls: Array<{ field: string; url: string }>;
    announce?: WebhookEventType | undefined;
  },
  errors: FieldErrors,
): Promise<References> {
  const found: References = { pixels: [] };
  // The loader of the ownership rule: the ids among the sent ones that the queries found to be the caller's.
  const owned = { domainIds: new Set<number>(), spaceIds: new Set<number>(), pixelIds: new Set<number>() };
  let served: Set<string> | undefined;
  let isAliasTaken = false;
  const checks: Array<Promise<void>> = [];
  if (refs.domainId !== undefined) {
    const domainId = refs.domainId;
    const names = [...new Set(refs.urls.flatMap(({ url }) => hostCandidates(hostOf(url))))];
    const announce = refs.announce;
    const query = announce
      ? preparedFor(db, `domains_owned_or_served_announcing_${announce.replace(".", "_")}`, () =>
          db
            .select({ ...domainColumns, workspaceId: domains.workspaceId, isAnnounced: sql<boolean>`${subscribedSql(sql`${ph.workspaceId}::int`, announce)}` })
            .from(domains)
            .where(ownedOrServed()),
        )
      : preparedFor(db, "domains_owned_or_served", () =>
          db
            .select({ ...domainColumns, workspaceId: domains.workspaceId })
            .from(domains)
            .where(ownedOrServed()),
        );
    checks.push(
      query.execute({ id: domainId, workspaceId, names: pgArray(names) }).then((result) => {
        const rows = result as Array<(typeof result)[number] & { isAnnounced?: boolean }>;
        // The subscription is the same on every row; no row means no domain, and no link to announce.
        if (announce) found.isAnnounced = rows[0]?.isAnnounced === true;
        const ownRow = rows.find((r) => r.id === domainId && r.workspaceId === workspaceId);
        if (ownRow) {
          const { workspaceId: _owner, isAnnounced: _isAnnounced, ...domain } = ownRow;
          found.domain = domain;
          owned.domainIds.add(domain.id);
        }
        served = new Set(rows.filter((r) => names.includes(r.name) && (r.verifiedAt !== null || r.workspaceId === workspaceId)).map((r) => r.name));
      }),
    );
  } else {
    checks.push(checkNoLoops(db, refs.urls, errors, { workspaceId }));
    const announce = refs.announce;
    if (announce) checks.push(hasSubscribers(db, workspaceId, announce).then((is) => void (found.isAnnounced = is)));
  }
  if (refs.spaceId) {
    const spaceId = refs.spaceId;
    const query = preparedFor(db, "spaces_owned", () =>
      db
        .select({ id: spaces.id, name: spaces.name, color: spaces.color })
        .from(spaces)
        .where(and(eq(spaces.id, ph.id), eq(spaces.workspaceId, ph.workspaceId))),
    );
    checks.push(
      query.execute({ id: spaceId, workspaceId }).then(([row]) => {
        if (!row) return;
        found.space = row;
        owned.spaceIds.add(row.id);
      }),
    );
  }
  if (refs.pixelIds?.length) {
    const ids = refs.pixelIds;
    checks.push(
      db
        .select(pixelColumns)
        .from(pixels)
        .where(and(inArray(pixels.id, ids), eq(pixels.workspaceId, workspaceId)))
        .orderBy(pixels.id)
        .then((rows) => {
          found.pixels = rows;
          for (const row of rows) owned.pixelIds.add(row.id);
        }),
    );
  }
  if (refs.alias) {
    const { domainId, alias, exceptLinkId } = refs.alias;
    checks.push(
      db
        .select({ id: links.id })
        .from(links)
        .where(and(eq(links.domainId, domainId), eq(links.alias, alias), exceptLinkId ? ne(links.id, exceptLinkId) : undefined))
        .limit(1)
        .then((rows) => void (isAliasTaken = rows.length > 0)),
    );
  }
  await Promise.all(checks);
  checkOwnership(refs, owned, errors);
  if (served) addLoopErrors(refs.urls, served, errors);
  if (isAliasTaken) addError(errors, "alias", ALIAS_TAKEN);
  return found;
}
