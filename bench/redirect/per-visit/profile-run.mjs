// One profile-real.sh run read back: its main thread's CPU profile (the largest file), the measured window
// and the visits wrk answered in it; `nodes` by id and each node's `parent`, for walking a sample's stack.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export function readRun(dir) {
  const window = JSON.parse(readFileSync(join(dir, "window"), "utf8")).window;
  const visits = Number(/(\d+) requests in/.exec(readFileSync(join(dir, "wrk"), "utf8"))?.[1] ?? NaN);
  const file = readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { window, visits, profile, nodes, parent };
}
