/** A link as a test seeds it into a fake source; each fake writes it in its own service's JSON. */
export type Seed = {
  alias: string;
  url: string;
  title: string | null;
  createdAt: Date;
  clicks: number;
  tags: string[];
  domain: string | null;
  /** Clicks per UTC day, for the sources that give them (Bitly). */
  clicksByDay?: Record<string, number>;
  /** Fields in the service's own terms, merged over what the fake writes (a folder, a password, a rule…). */
  extra?: Record<string, unknown>;
};

/** How a fake misbehaves: pages that loop, totals that lie, raw items served instead of the first page's. */
export type Quirks = { stuck?: boolean; claimTotal?: number; raw?: unknown[] };

/** `count` ordinary links, created a minute apart, with titles, tags and clicks. */
export function seeds(count: number, prefix = "s"): Seed[] {
  return Array.from({ length: count }, (_, i) => ({
    alias: `${prefix}${String(i).padStart(4, "0")}`,
    url: `https://example.com/page/${i}?q=${i}`,
    title: i % 3 === 0 ? null : `Title ${i}`,
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)),
    clicks: (i * 7) % 50,
    tags: i % 2 === 0 ? ["even", `t${i % 5}`] : [],
    domain: null,
  }));
}
