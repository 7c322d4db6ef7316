import type { ImportRow } from "@shortener/core";
import type { SourceLink, SourceTarget } from "./source.ts";

const two = (n: number) => String(n).padStart(2, "0");
const targets = (entries: readonly SourceTarget[] | undefined) => (entries?.length ? JSON.stringify(entries) : "");

/**
 * A source's link as an import row (CONTRACT §12 columns and the migration columns of issue #31), at
 * `line`: the import's checks then apply the same rules as to any file row. A link the adapter refused,
 * or one without an alias (a migration keeps every alias or says why not: it never invents one), is a
 * row error with the reason.
 */
export function importRowOf(link: SourceLink, line: number): ImportRow {
  const alias = typeof link.alias === "string" ? link.alias : "";
  if (link.refusal) return { line, error: link.refusal, ...(alias ? { alias } : {}) };
  if (!alias) return { line, error: "The source gave this link no alias." };
  const end = link.endsAt;
  const fields: Record<string, string> = {
    alias,
    url: link.url,
    domain: link.domain ?? "",
    title: link.title ?? "",
    password: link.password ?? "",
    disabled: link.disabled ? "1" : "",
    privacy: link.isStatsPrivate ? "1" : "",
    expiration_date: end ? `${end.getUTCFullYear()}-${two(end.getUTCMonth() + 1)}-${two(end.getUTCDate())}` : "",
    expiration_time: end ? `${two(end.getUTCHours())}:${two(end.getUTCMinutes())}` : "",
    expiration_clicks: link.expirationClicks ? String(link.expirationClicks) : "",
    expiration_url: link.expirationUrl ?? "",
    created_at: link.createdAt ? link.createdAt.toISOString() : "",
    clicks: link.clicks !== undefined ? String(link.clicks) : "",
    clicks_by_day: link.clicksByDay
      ? Object.entries(link.clicksByDay)
          .map(([day, n]) => `${day}=${n}`)
          .join(";")
      : "",
    tags: link.tags?.length ? link.tags.join(";") : "",
    target_type: link.targetType !== undefined ? String(link.targetType) : "",
    country_target: targets(link.countryTarget),
    platform_target: targets(link.platformTarget),
    language_target: targets(link.languageTarget),
    rotation_target: link.rotationTarget?.length ? JSON.stringify(link.rotationTarget) : "",
  };
  return { line, fields };
}
