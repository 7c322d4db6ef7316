/**
 * Bot classification benchmark (issue 29, ADR 0040): how the visitor side's classification does on two
 * labelled sets nobody here wrote, and what it costs.
 *   - Figures: the share of crawler-user-agents' bot examples caught, and of user-agents' real browsers
 *     flagged (both sets whole, as their packages ship them), for isbot alone and for `classifyAgent`
 *     (isbot plus Office previews and names); the examples missed and the browsers flagged are listed.
 *   - Speed, in ns per call, median of BENCH_ROUNDS rounds over all 12,000-odd User-Agents:
 *       cold: `classifyAgent` (what runs once per distinct User-Agent) and `describeAgent` on a cache miss
 *             (classification plus ua-parser-js);
 *       cached: `describeAgent` on a User-Agent already seen (an LRU hit), and `botOf` on a request
 *             (the header reads plus that hit): the cost on the hot path.
 *
 *   npx -y pnpm@10.34.9 bench:bots
 *   BENCH_ROUNDS=9 npx -y pnpm@10.34.9 bench:bots
 */
import type { IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import crawlers from "crawler-user-agents";
import { isbotMatch } from "isbot";
import UserAgent from "user-agents";
import { botOf, classifyAgent, describeAgent } from "@shortener/redirect";
import { log } from "../common.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** ns per call of `fn` over `inputs`, the median of ROUNDS rounds; `fresh` runs before each round. */
function nsPerCall<T>(inputs: readonly T[], fn: (input: T) => unknown, fresh?: () => void): number {
  const rounds: number[] = [];
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    fresh?.();
    const start = performance.now();
    for (const input of inputs) if (fn(input) !== undefined) sink++;
    rounds.push(((performance.now() - start) * 1e6) / inputs.length);
  }
  if (sink < 0) console.log(sink);
  return median(rounds);
}

// The same sets as apps/redirect/test/labelled-agents.ts (the test's copy): every example of every
// crawler-user-agents entry, and user-agents' whole data set (`top()` without a count).
const labelled = { bots: crawlers.flatMap((crawler) => crawler.instances), browsers: UserAgent.top().map((entry) => entry.userAgent) };

type Figures = { caught: number; bots: number; caughtPercent: number; missed: string[]; flagged: number; browsers: number; flaggedPercent: number; flaggedAgents: string[] };

function measure(classify: (userAgent: string) => string | null): Figures {
  const missed = labelled.bots.filter((agent) => classify(agent) === null);
  const flaggedAgents = labelled.browsers.filter((agent) => classify(agent) !== null);
  const caught = labelled.bots.length - missed.length;
  const { bots, browsers } = { bots: labelled.bots.length, browsers: labelled.browsers.length };
  return { caught, bots, caughtPercent: (100 * caught) / bots, missed, flagged: flaggedAgents.length, browsers, flaggedPercent: (100 * flaggedAgents.length) / browsers, flaggedAgents };
}

log(`labelled sets: ${labelled.bots.length} bot examples (crawler-user-agents), ${labelled.browsers.length} browsers (user-agents)`);

const isbotAlone = measure(isbotMatch);
const ours = measure(classifyAgent);
console.log(`\n| Classifier | Bots caught | Browsers flagged |\n|---|---|---|`);
for (const [name, figures] of [
  ["isbot alone", isbotAlone],
  ["classifyAgent (isbot + Office previews)", ours],
] as const) {
  console.log(`| ${name} | ${figures.caught}/${figures.bots} (${figures.caughtPercent.toFixed(2)} %) | ${figures.flagged}/${figures.browsers} (${figures.flaggedPercent.toFixed(2)} %) |`);
}
console.log(`\nclassifyAgent: bots caught ${ours.caught}/${ours.bots} (${ours.caughtPercent.toFixed(2)} %), browsers flagged ${ours.flagged}/${ours.browsers} (${ours.flaggedPercent.toFixed(2)} %)`);
console.log(`missed (${ours.missed.length}):\n${ours.missed.map((agent) => `  ${agent}`).join("\n")}`);
console.log(`flagged (${ours.flaggedAgents.length}):\n${ours.flaggedAgents.map((agent) => `  ${agent}`).join("\n")}`);

// Speed. Every User-Agent of both sets, in a fixed shuffled order (bots and browsers mixed).
const agents = [...labelled.bots, ...labelled.browsers];
for (let i = agents.length - 1, seed = 29; i > 0; i--) {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  const j = seed % (i + 1);
  [agents[i], agents[j]] = [agents[j] ?? "", agents[i] ?? ""];
}
// A cold describeAgent needs User-Agents it has not seen: each round gets its own suffix (a browser
// token, so the classification is unchanged for browsers).
let coldRound = 0;
let coldAgents: string[] = [];
const coldDescribe = nsPerCall(
  agents.map((_, i) => i),
  (i) => describeAgent(coldAgents[i]),
  () => (coldAgents = agents.map((agent) => `${agent} r${++coldRound}`)),
);
const coldClassify = nsPerCall(agents, classifyAgent);
const coldIsbot = nsPerCall(agents, isbotMatch);
// Naming runs for bots only: the same two on the bot examples alone.
const botsIsbot = nsPerCall(labelled.bots, isbotMatch);
const botsClassify = nsPerCall(labelled.bots, classifyAgent);
// Cached: the LRU holds 20,000 entries; a working set of 2,000 distinct User-Agents, all seen before.
const working = agents.slice(0, 2_000);
for (const agent of working) describeAgent(agent);
const repeated = Array.from({ length: 200_000 }, (_, i) => working[(i * 7919) % working.length] ?? "");
const cachedDescribe = nsPerCall(repeated, describeAgent);
const requests = repeated.map((agent, i) => ({
  method: "GET",
  headers: i % 100 === 0 ? { "user-agent": agent, "sec-purpose": "prefetch" } : { "user-agent": agent, accept: "text/html", "accept-language": "en" },
})) as unknown as IncomingMessage[];
const cachedBotOf = nsPerCall(requests, (req) => botOf(req, describeAgent(req.headers["user-agent"])));

console.log(`\n| Call | ns per call (median of ${ROUNDS} rounds) |\n|---|---|`);
console.log(`| isbotMatch alone (cold, no cache) | ${coldIsbot.toFixed(0)} |`);
console.log(`| classifyAgent (cold: isbot + Office + naming) | ${coldClassify.toFixed(0)} |`);
console.log(`| isbotMatch, bot examples only | ${botsIsbot.toFixed(0)} |`);
console.log(`| classifyAgent, bot examples only (with naming) | ${botsClassify.toFixed(0)} |`);
console.log(`| describeAgent, cache miss (classification + ua-parser-js) | ${coldDescribe.toFixed(0)} |`);
console.log(`| describeAgent, cached (LRU hit) | ${cachedDescribe.toFixed(0)} |`);
console.log(`| botOf(req, describeAgent(…)), cached (the visit path) | ${cachedBotOf.toFixed(0)} |`);
