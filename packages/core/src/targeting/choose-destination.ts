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
export function chooseDestination(link: TargetedLink, traits: VisitTraits, rotationIndex: number): { url: string; rotation: number | null } {
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
