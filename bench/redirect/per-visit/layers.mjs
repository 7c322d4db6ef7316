// node layers.mjs <profile dir> <window file> <visits>: µs per visit per layer of the visitor path, from the
// main thread's CPU profile of in-memory.mts (the last round's window). Each sample goes to the innermost
// layer on its stack: clicks (the buffer's add), cache (the resolver's domain/link), agentGeo (User-Agent,
// country, languages, referrer), respond (sendRedirect: headers and the response write), handler (the rest
// of the redirect handler), route (the launcher's listener), parse (node:http's parser up to the listener),
// harness (the in-memory client), gc, and other (node:http's bookkeeping after the response, timers).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
const [dir, windowFile, nStr] = process.argv.slice(2);
const N = Number(nStr);
const win = JSON.parse(readFileSync(windowFile, "utf8").trim().split("\n").pop()).window;
const file = readdirSync(dir)
  .map((n) => join(dir, n))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
const p = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const L = { total: 0, gc: 0, parse: 0, route: 0, handler: 0, cache: 0, respond: 0, clicks: 0, agentGeo: 0, harness: 0, other: 0 };
let t = p.startTime;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (t < win[0] || t > win[1]) return;
  const dt = p.timeDeltas[i + 1] ?? 0;
  const leaf = nodes.get(id).callFrame;
  if (leaf.functionName === "(idle)") return;
  L.total += dt;
  if (leaf.functionName === "(garbage collector)") {
    L.gc += dt;
    return;
  }
  // walk up: the innermost layer marker wins
  let cur = id;
  let layer;
  while (cur !== undefined) {
    const cf = nodes.get(cur).callFrame;
    if (!layer) {
      if ((cf.functionName === "add" || cf.functionName === "keep") && cf.url.includes("redirect/src/clicks")) layer = "clicks";
      else if ((cf.functionName === "domain" || cf.functionName === "link") && cf.url.includes("redirect/src/cache")) layer = "cache";
      else if (cf.functionName === "describeAgent" || cf.functionName === "countryOf" || cf.functionName === "languagesOf" || cf.functionName === "referrerHost") layer = "agentGeo";
      else if (cf.functionName === "sendRedirect") layer = "respond";
      else if (cf.functionName === "handle" && cf.url.includes("redirect/src/redirect")) layer = "handler";
      else if (cf.url.includes("launcher/src/server")) layer = "route";
      else if (cf.functionName === "parserOnHeadersComplete" || cf.functionName === "socketOnData") layer = "parse";
      else if (cf.url.includes("per-visit/in-memory")) layer = "harness";
    }
    cur = parent.get(cur);
  }
  L[layer ?? "other"] += dt;
});
const out = {};
for (const [k, v] of Object.entries(L)) out[k] = +(v / N).toFixed(2);
console.log(JSON.stringify(out));
