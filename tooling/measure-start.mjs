#!/usr/bin/env node
// Measures a start: seconds until GET /healthz answers 200 (or `--path` answers anything, with `--anyStatus 1`), then the resident memory (RSS) of the
// serving process and of its whole process tree (wrappers such as npx/pnpm included) after an idle wait.
// Usage: node tooling/measure-start.mjs [--idle 20] [--port 3999] -- <command> [args…]
// The environment passes through (DATA_DIR, DATABASE_URL, SERVICES, …). Loopback only.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
const dash = args.indexOf("--");
const opts = Object.fromEntries(
  (dash === -1 ? args : args.slice(0, dash))
    .join(" ")
    .split("--")
    .filter(Boolean)
    .map((s) => s.trim().split(/\s+/)),
);
const command = dash === -1 ? [] : args.slice(dash + 1);
const idle = Number(opts.idle ?? 20);
const port = Number(opts.port ?? process.env.PORT ?? 3999);
// `--path /x --anyStatus 1`: wait for any answer on another path (a role that has no /healthz).
const path = opts.path ?? "/healthz";
const anyStatus = Boolean(opts.anyStatus);
if (!command.length) throw new Error("usage: measure-start.mjs [--idle s] [--port n] -- command …");

function children() {
  const map = new Map();
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      (map.get(ppid) ?? map.set(ppid, []).get(ppid)).push(Number(pid));
    } catch {}
  }
  return map;
}
function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}
function tree(root) {
  const map = children();
  const out = [];
  const walk = (pid) => {
    out.push(pid);
    for (const c of map.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

const started = performance.now();
const child = spawn(command[0], command.slice(1), { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"], detached: true });
let output = "";
child.stdout.on("data", (d) => (output += d));
child.stderr.on("data", (d) => (output += d));
let exited = false;
child.on("exit", () => (exited = true));

let ready;
while (!exited && performance.now() - started < 180_000) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    if (res.status === 200 || anyStatus) {
      ready = (performance.now() - started) / 1000;
      break;
    }
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}
if (ready === undefined) {
  console.error(output);
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {}
  throw new Error("never answered /healthz");
}
await new Promise((r) => setTimeout(r, idle * 1000));
const pids = tree(child.pid);
const rows = pids.map((pid) => ({ pid, rssMb: Math.round(rssKb(pid) / 1024), cmd: cmdline(pid).slice(0, 90) }));
const server = rows.reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
const total = rows.reduce((s, r) => s + r.rssMb, 0);
console.log(JSON.stringify({ command: command.join(" "), firstStartSeconds: Number(ready.toFixed(1)), idleSeconds: idle, serverRssMb: server.rssMb, treeRssMb: total, processes: rows }, null, 1));
try {
  process.kill(-child.pid, "SIGTERM");
} catch {}
await new Promise((r) => setTimeout(r, 1500));
try {
  process.kill(-child.pid, "SIGKILL");
} catch {}
