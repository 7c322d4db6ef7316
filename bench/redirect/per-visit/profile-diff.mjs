// node profile-diff.mjs /tmp/prof-A /tmp/prof-B: busy µs per visit of two profile-real.sh runs, and the
// 40 functions whose self time per visit differs most (A − B, A, B), our code's files summed as "ours".
import { readRun } from "./profile-run.mjs";
function load(dir) {
  const { window: win, visits: n, profile: p, nodes } = readRun(dir);
  const self = new Map();
  let t = p.startTime,
    busy = 0;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (t < win[0] || t > win[1]) return;
    const dt = p.timeDeltas[i + 1] ?? 0;
    const cf = nodes.get(id).callFrame;
    if (cf.functionName === "(idle)") return;
    busy += dt;
    const u = cf.url.includes("node_modules") ? "npm:" + cf.url.split("node_modules/").pop().split("/")[0] : cf.url.startsWith("node:") ? cf.url : cf.url ? "ours" : "";
    const k = `${cf.functionName || "(anon)"} ${u}`;
    self.set(k, (self.get(k) ?? 0) + dt);
  });
  return { n, busy, self };
}
const a = load(process.argv[2]),
  b = load(process.argv[3]);
console.log(`busy µs/visit: ${(a.busy / a.n).toFixed(2)} vs ${(b.busy / b.n).toFixed(2)}`);
const keys = new Set([...a.self.keys(), ...b.self.keys()]);
const rows = [...keys].map((k) => [k, (a.self.get(k) ?? 0) / a.n, (b.self.get(k) ?? 0) / b.n]);
rows.sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]));
for (const [k, x, y] of rows.slice(0, 40)) console.log(`${(x - y).toFixed(3).padStart(7)}  ${x.toFixed(3)}  ${y.toFixed(3)}  ${k}`);
const ours = (s, n) => [...s].filter(([k]) => k.endsWith(" ours")).reduce((m, [, v]) => m + v, 0) / n;
console.log(`ours: ${ours(a.self, a.n).toFixed(3)} vs ${ours(b.self, b.n).toFixed(3)}`);
