import { TARGET_TYPES, type LinkTargets } from "./target-types.ts";

/** What targeting knows of a visitor. */
export type VisitTraits = {
  country: string | null;
  platform: string | null;
  /** Primary language subtags, most preferred first (`Accept-Language` by q). */
  languages: readonly string[];
};

export type TargetedLink = { url: string } & LinkTargets;

/**
 * Step 8 of CONTRACT §7: the destination for this visitor. `rotationIndex` is the visit's position in
 * the round-robin (the caller keeps the counter). Returns the URL and, for rotation, the index served.
 * It reads only the visitor facts `visitorFactsFor(link.targetType)` names.
 */
export function chooseDestination(link: TargetedLink, traits: VisitTraits, rotationIndex: number, visitor?: string | null): { url: string; rotation: number | null } {
  switch (link.targetType) {
    case TARGET_TYPES.country: {
      const hit = traits.country ? link.countryTarget?.find((e) => e.key === traits.country) : undefined;
      return { url: hit?.value ?? link.url, rotation: null };
    }
    case TARGET_TYPES.platform: {
      const hit = traits.platform ? link.platformTarget?.find((e) => e.key === traits.platform) : undefined;
      return { url: hit?.value ?? link.url, rotation: null };
    }
    case TARGET_TYPES.language: {
      for (const language of traits.languages) {
        const hit = link.languageTarget?.find((e) => e.key === language);
        if (hit) return { url: hit.value, rotation: null };
      }
      return { url: link.url, rotation: null };
    }
    case TARGET_TYPES.rotation: {
      const entries = link.rotationTarget;
      if (!entries?.length) return { url: link.url, rotation: null };
      if (entries[0]?.weight !== undefined) {
        const index = weightedIndex(entries, visitor);
        return { url: entries[index]?.value ?? link.url, rotation: index };
      }
      const index = ((rotationIndex % entries.length) + entries.length) % entries.length;
      return { url: entries[index]?.value ?? link.url, rotation: index };
    }
    default:
      return { url: link.url, rotation: null };
  }
}

/** `Accept-Language` → primary subtags by descending q (ties keep header order), without q=0 and duplicates. */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  const ranked: Array<{ tag: string; q: number; i: number }> = [];
  header
    .split(",")
    .slice(0, 20)
    .forEach((part, i) => {
      const [range, ...params] = part.trim().split(";");
      const tag = range?.trim().toLowerCase().split("-")[0] ?? "";
      if (!/^[a-z]{2}$/.test(tag)) return;
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      if (!Number.isFinite(q) || q <= 0 || q > 1) return;
      ranked.push({ tag, q, i });
    });
  ranked.sort((a, b) => b.q - a.q || a.i - b.i);
  return [...new Set(ranked.map((r) => r.tag))];
}

/** Step 9 of CONTRACT §7: the visitor's query parameters over the destination's; the fragment stays. */
export function mergeQuery(destination: string, visitorQuery: string): string {
  if (!visitorQuery) return destination;
  const url = new URL(destination);
  const incoming = new URLSearchParams(visitorQuery);
  for (const key of new Set(incoming.keys())) {
    url.searchParams.delete(key);
    for (const value of incoming.getAll(key)) url.searchParams.append(key, value);
  }
  return url.href;
}

/** True when the link rotates by weight (CONTRACT §25): then each visitor keeps one entry for the day, picked by `visitor`. */
export function isWeightedRotation(link: Pick<LinkTargets, "targetType" | "rotationTarget">): boolean {
  return link.targetType === TARGET_TYPES.rotation && link.rotationTarget?.[0]?.weight !== undefined;
}

const TWO_TO_32 = 2 ** 32;

/**
 * The entry a visitor gets on a weighted rotation: the visitor's hash (16 hex digits of a keyed SHA-256,
 * CONTRACT §21: the same for one visitor, link and UTC day, uniform over visitors) read as a point in
 * [0, 1) and placed on the entries' cumulative weights. Without a hash (the day's salt could not be
 * read) a random point: the shares still hold, the stickiness does not.
 */
export function weightedIndex(entries: ReadonlyArray<{ weight?: number }>, visitor: string | null | undefined): number {
  let total = 0;
  for (const e of entries) total += e.weight ?? 1;
  const point = (visitor ? Number.parseInt(visitor.slice(0, 8), 16) / TWO_TO_32 : Math.random()) * total;
  let sum = 0;
  for (let i = 0; i < entries.length; i++) {
    sum += entries[i]?.weight ?? 1;
    if (point < sum) return i;
  }
  return entries.length - 1;
}
