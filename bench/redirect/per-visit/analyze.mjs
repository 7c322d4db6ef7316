// node analyze.mjs <profile dir> <window file> <visits> [top]: self and inclusive time per visit by file and
// function in the last window of a CPU profile (in-memory.mts writes the windows).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
const [dir, windowFile, nStr, topStr] = process.argv.slice(2);
const N = Number(nStr);
const TOP = Number(topStr ?? 40);
const win = JSON.parse(readFileSync(windowFile, "utf8").trim().split("\n").pop()).window;
const file = readdirSync(dir)
  .map((n) => join(dir, n))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
const p = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const byUrl = new Map();
const incl = new Map();
let t = p.startTime,
  total = 0,
  idle = 0;
const short = (u) => u.replace(/^file:\/\/.*?\/(apps|packages|launcher|bench)\//, "$1/").replace(/.*node_modules\/\.pnpm\/([^/]+)\/node_modules\//, "npm:$1/");
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < win[0] || t > win[1]) return;
  const dt = p.timeDeltas[i + 1] ?? 0;
  total += dt;
  const n = nodes.get(id);
  const cf = n.callFrame;
  if (cf.functionName === "(idle)") {
    idle += dt;
    return;
  }
  const key = `${cf.functionName || "(anon)"} ${short(cf.url)}:${cf.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + dt);
  const u = short(cf.url) || cf.functionName;
  byUrl.set(u, (byUrl.get(u) ?? 0) + dt);
  // inclusive per frame key (once per stack)
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const c = nodes.get(cur).callFrame;
    const k = `${c.functionName || "(anon)"} ${short(c.url)}:${c.lineNumber}`;
    if (!seen.has(k)) {
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + dt);
    }
    cur = parent.get(cur);
  }
});
const busy = total - idle;
console.log(`window ${(total / 1e6).toFixed(2)} s, busy ${(busy / N).toFixed(2)} µs/visit, idle ${(idle / N).toFixed(2)} µs/visit`);
const show = (m, title, k = TOP) => {
  console.log(`\n## ${title}`);
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .forEach(([k, v]) => console.log(`${(v / N).toFixed(3).padStart(8)} µs ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`));
};
show(byUrl, "self by file", 30);
show(self, "self by function");
show(incl, "inclusive by function", 60);
