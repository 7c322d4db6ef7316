// Labelled User-Agents nobody here wrote (ADR 0040), for bots.test.ts and `pnpm bench:bots`:
// - bots: every example (`instances`) of every entry of crawler-user-agents (MIT, github.com/monperrus/crawler-user-agents);
// - browsers: every entry of user-agents' data set (BSD-2-Clause, github.com/intoli/user-agents), real
//   browsers' User-Agents collected from visits to its authors' sites, not filtered here.
import crawlers from "crawler-user-agents";
import UserAgent from "user-agents";

export type Labelled = { bots: readonly string[]; browsers: readonly string[] };

export function loadLabelled(): Labelled {
  const bots = crawlers.flatMap((crawler) => crawler.instances);
  // `top()` without a count: the whole data set, heaviest first.
  const browsers = UserAgent.top().map((entry) => entry.userAgent);
  return { bots, browsers };
}

export type Figures = {
  bots: number;
  caught: number;
  /** Share of bot examples classified as bots, in %. */
  caughtPercent: number;
  missed: string[];
  browsers: number;
  flagged: number;
  /** Share of browsers' User-Agents classified as bots, in %. */
  flaggedPercent: number;
  flaggedAgents: string[];
};

/** How `classify` (a bot name or null) does on the labelled sets. */
export function measure(labelled: Labelled, classify: (userAgent: string) => string | null): Figures {
  const missed = labelled.bots.filter((agent) => classify(agent) === null);
  const flaggedAgents = labelled.browsers.filter((agent) => classify(agent) !== null);
  const caught = labelled.bots.length - missed.length;
  return {
    bots: labelled.bots.length,
    caught,
    caughtPercent: (100 * caught) / labelled.bots.length,
    missed,
    browsers: labelled.browsers.length,
    flagged: flaggedAgents.length,
    flaggedPercent: (100 * flaggedAgents.length) / labelled.browsers.length,
    flaggedAgents,
  };
}

/** The two figures in one line, e.g. "bots caught 2109/2118 (99.58 %), browsers flagged 0/10000 (0.00 %)". */
export function describeFigures(figures: Figures): string {
  return `bots caught ${figures.caught}/${figures.bots} (${figures.caughtPercent.toFixed(2)} %), ` + `browsers flagged ${figures.flagged}/${figures.browsers} (${figures.flaggedPercent.toFixed(2)} %)`;
}
