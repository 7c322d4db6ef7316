// Pinned A/B of real launchers (each server on CPU 1, wrk on CPU 0), restarted every round, the order
// swapped each round; prints requests/s and the server's CPU (user + system, /proc) per answered visit.
//   node bench/redirect/per-visit/ab.mjs <rounds> <seconds> <path> label=checkout[,VAR:value…] …
// AB_SCRIPT=<a wrk Lua script> sends its requests instead of the fixed one (e.g. proxied-visitors.lua, with
// TRUST_PROXY:loopback on every side). AB_LAYOUT=<n> starts every server without address-space
// randomisation (setarch -R) and with V8's random seed n, so each start lays its memory out alike.
// A side's VAR:value settings apply to its measured start only (its links are made by a start without
// them); "+" in a value stands for ",": main=/work/main,SERVICES:api+redirect (docs/benchmarks.md, 2026-12-02).
import { spawn, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
const [rounds, secs, path, ...sideArgs] = process.argv.slice(2);
const sides = sideArgs.map((s) => {
  const [label, rest] = s.split("=");
  const [root, ...envs] = rest.split(",");
  return {
    label,
    root,
    env: Object.fromEntries(
      envs.map((e) => {
        const [k, v] = e.split(":");
        return [k, v.replaceAll("+", ",")];
      }),
    ),
    cpu: [],
    rps: [],
  };
});
const KEY = "shk_" + "B".repeat(40);
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ticks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(f[11]) + Number(f[12]);
};
const psql = (sql) => execFileSync("psql", ["-q", "-h", "127.0.0.1", "-U", "postgres", "-c", sql, "postgres"], { stdio: "ignore" });
async function up(side, port, db, env) {
  const layout = process.env.AB_LAYOUT ? ["setarch", "x86_64", "-R", "taskset", "-c", "1", "node", `--random-seed=${process.env.AB_LAYOUT}`] : ["taskset", "-c", "1", "node"];
  const child = spawn(layout[0], [...layout.slice(1), "--import", "tsx", "launcher/src/main.ts"], {
    cwd: side.root,
    stdio: "ignore",
    env: {
      ...process.env,
      NODE_OPTIONS: "--conditions=@shortener/source",
      PORT: String(port),
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${db}`,
      ADMIN_API_KEY: KEY,
      RATE_LIMIT_PER_MINUTE: "1000000",
      ...env,
    },
  });
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      await sleep(300);
      return child;
    } catch {}
    await sleep(100);
  }
  throw new Error("no start " + side.label);
}
const down = (c) =>
  new Promise((r) => {
    c.once("exit", r);
    c.kill("SIGINT");
  });
const wrk = (port, s) =>
  new Promise((res) => {
    const script = process.env.AB_SCRIPT ? ["-s", process.env.AB_SCRIPT] : [];
    const c = spawn("taskset", ["-c", "0", "wrk", "-t1", "-c64", `-d${s}s`, ...script, "-H", `Host: localhost:${port}`, "-H", `User-Agent: ${UA}`, `http://127.0.0.1:${port}${path}`]);
    let o = "";
    c.stdout.on("data", (d) => (o += d));
    c.on("exit", () => res({ rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(o)[1]), n: Number(/(\d+) requests in/.exec(o)[1]) }));
  });
for (let r = 0; r < Number(rounds); r++) {
  const order = r % 2 ? [...sides].reverse() : sides;
  for (const side of order) {
    const port = 30000 + Math.floor(Math.random() * 20000),
      db = `ab_${side.label}`;
    psql(`drop database if exists ${db} with (force)`);
    psql(`create database ${db}`);
    let c = await up(side, port, db, {});
    for (const form of [
      { url: "https://example.com/destination", domain_id: "1", alias: "plain" },
      { url: "https://example.com/limited", domain_id: "1", alias: "limited", expiration_clicks: "999999999" },
    ])
      await fetch(`http://127.0.0.1:${port}/api/v1/links`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form),
      });
    if (Object.keys(side.env).length) {
      await down(c);
      c = await up(side, port, db, side.env);
    }
    await wrk(port, 2);
    const t0 = ticks(c.pid);
    const w = await wrk(port, Number(secs));
    const t1 = ticks(c.pid);
    const cpu = ((t1 - t0) * 10000) / w.n; // µs per visit (100 Hz ticks)
    side.cpu.push(cpu);
    side.rps.push(w.rps);
    console.log(`round ${r + 1} ${side.label}: ${w.rps.toFixed(0)} req/s, ${cpu.toFixed(2)} µs/visit`);
    await down(c);
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const s of sides) console.log(`${s.label}: median ${med(s.rps).toFixed(0)} req/s, ${med(s.cpu).toFixed(2)} µs/visit; cpu ${s.cpu.map((x) => x.toFixed(1)).join(" ")}`);
