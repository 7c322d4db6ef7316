// node bench/redirect/pool-rounds.mjs <log>...: the rounds of several `BENCH_COMPARE` runs of bench:redirect
// (their printed output, saved to files) pooled per case: the median of every round's ratio and CPU a
// visit, and the same over the rounds where neither side had 5 % or more of the machine's time stolen.
// One run's 8 rounds scatter too much to tell a few per cent; several runs' rounds pooled tell more.
import { readFileSync } from "node:fs";

const ROUND =
  /^(.+?), round \d+: this \d+ req\/s \(p99 [\d.]+ ms, CPU ([\d.]+) \+ PostgreSQL ([\d.]+) µs\/visit\), other \d+ req\/s \(p99 [\d.]+ ms, CPU ([\d.]+) \+ PostgreSQL ([\d.]+) µs\/visit\), ratio ([\d.]+); load [\d.]+(?:, steal (\d+) \/ (\d+) %)?/;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const half = s.length / 2;
  return s.length ? (Number.isInteger(half) ? (s[half - 1] + s[half]) / 2 : s[Math.floor(half)]) : NaN;
};

const cases = new Map();
for (const file of process.argv.slice(2)) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = ROUND.exec(line);
    if (!m) continue;
    const round = { ratio: Number(m[6]), mine: Number(m[2]) + Number(m[3]), other: Number(m[4]) + Number(m[5]), steal: m[7] === undefined ? null : Math.max(Number(m[7]), Number(m[8])) };
    if (!cases.has(m[1])) cases.set(m[1], []);
    cases.get(m[1]).push(round);
  }
}
if (!cases.size) {
  console.error("no comparison rounds found: pass the saved output of `BENCH_COMPARE=… bench:redirect` runs");
  process.exit(1);
}
const summary = (rounds) =>
  `median ratio ${median(rounds.map((r) => r.ratio)).toFixed(3)}, CPU µs a visit ${median(rounds.map((r) => r.mine)).toFixed(2)} / ${median(rounds.map((r) => r.other)).toFixed(2)}`;
for (const [name, rounds] of cases) {
  const quiet = rounds.filter((r) => r.steal !== null && r.steal < 5);
  console.log(`${name}: ${rounds.length} rounds, ${summary(rounds)}; ${quiet.length} rounds with steal under 5 %${quiet.length ? `, ${summary(quiet)}` : ""}`);
}
