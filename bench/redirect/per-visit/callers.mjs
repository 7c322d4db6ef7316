// node callers.mjs /tmp/prof-LABEL <function>: time per visit under <function> in a profile-real.sh
// run's window, by its chain of callers (seven frames)
import { readRun } from "./profile-run.mjs";
const [dir, fn] = process.argv.slice(2);
const { window: win, visits: N, profile: p, nodes, parent } = readRun(dir);
const agg = new Map();
let t = p.startTime;
const name = (cf) => `${cf.functionName || "(anon)"}@${cf.url.split("/").pop()}:${cf.lineNumber}`;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < win[0] || t > win[1]) return;
  const dt = p.timeDeltas[i + 1] ?? 0;
  let cur = id,
    chain = [];
  while (cur !== undefined) {
    chain.push(name(nodes.get(cur).callFrame));
    cur = parent.get(cur);
  }
  const k = chain.findIndex((c) => c.startsWith(fn + "@"));
  if (k < 0) return;
  const key = chain.slice(k, k + 7).join(" < ");
  agg.set(key, (agg.get(key) ?? 0) + dt);
});
for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log((v / N).toFixed(3), k);
