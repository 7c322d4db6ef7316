/**
 * A checkout's whole visitor path in one process, without the kernel: the real launcher (`startServer`,
 * Postgres) answers visits that arrive on in-memory sockets (a Duplex handed to the server's
 * `connection` event), so node:http, the launcher's routing, the redirect handler, the response and the
 * click buffer all run as in production, and nothing else shares the measurement: no wrk, no loopback
 * send. Used for the per-layer table of docs/benchmarks.md (issue 26), under `node --cpu-prof` (layers.mjs
 * splits the profile) or under callgrind (instructions per visit; VG=1 switches the instrumentation on
 * for the measured rounds only).
 *
 *   cd <checkout> && NODE_OPTIONS=--conditions=@shortener/source node --import tsx \
 *     <this file> <checkout> /plain 200000 [varied] [rounds]
 *
 * WARM sets the warm-up visits (default 100,000); RAW=1 answers from a Map instead (node:http's own
 * cost); WINDOW=<file> appends each round's monotonic window (µs) for layers.mjs.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { Duplex } from "node:stream";
import { REDIRECT_BENCH_LINKS } from "../../common.ts";

const [root = ".", path = "/plain", count = "100000", mode = "", roundsArg = "5"] = process.argv.slice(2);
const N = Number(count);
const ROUNDS = Number(roundsArg);
const KEY = `shk_${"B".repeat(40)}`;

type Running = { server: Server; close(): Promise<void> };
type Sql = { unsafe(query: string): Promise<unknown>; end(): Promise<void> };

const postgres = (await import(`${root}/node_modules/.pnpm/node_modules/postgres/src/index.js`)).default as (url: string, options: object) => Sql;
const admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
const dbName = `bench_in_memory_${process.pid}`;
await admin.unsafe(`create database ${dbName}`);
const port = await new Promise<number>((resolve) => {
  const probe = createNetServer();
  probe.listen(0, "127.0.0.1", () => {
    const { port: free } = probe.address() as AddressInfo;
    probe.close(() => resolve(free));
  });
});
const host = `localhost:${port}`;

async function startLauncher(): Promise<Running> {
  const launcher = (await import(`${root}/launcher/src/index.ts`)) as {
    parseEnv(source: Record<string, string>): unknown;
    startServer(env: unknown, logger: unknown, now: () => Date): Promise<Running>;
  };
  const pino = (await import(`${root}/node_modules/.pnpm/node_modules/pino/pino.js`)).default as (options: object) => unknown;
  const env = launcher.parseEnv({
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${dbName}`,
    PORT: String(port),
    HOST: "127.0.0.1",
    ADMIN_API_KEY: KEY,
    RATE_LIMIT_PER_MINUTE: "1000000",
    LOG_LEVEL: "warn",
  });
  const running = await launcher.startServer(env, pino({ level: "warn" }), () => new Date());
  const api = async (form: Record<string, string>) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
    });
    if (res.status !== 201) throw new Error(await res.text());
  };
  for (const form of REDIRECT_BENCH_LINKS) await api(form);
  return running;
}

/** bench/redirect/raw-server.mjs's handler, on the same in-memory sockets. */
async function startRaw(): Promise<Running> {
  const links = new Map([["/plain", "https://example.com/destination"]]);
  const server = createHttpServer((req, res) => {
    res.writeHead(302, { location: links.get(req.url ?? "/") ?? "", "cache-control": "private, no-store", "content-length": 0 });
    res.end();
  });
  await new Promise<void>((ok) => server.listen(port, "127.0.0.1", () => ok()));
  return { server, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

const running = process.env.RAW ? await startRaw() : await startLauncher();

const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const agents = [
  UA,
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
];
const languages = ["en-US,en;q=0.9", "fr-FR,fr;q=0.9,en;q=0.5", "de-DE,de;q=0.9", "ja-JP,ja;q=0.9"];
let seed = 12345;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const requests: Buffer[] = [];
if (mode === "varied") {
  for (let i = 0; i < 997; i++) {
    const referrer = random(25);
    const referer = referrer ? `Referer: https://site${referrer}.example/page?id=${referrer}\r\n` : "";
    requests.push(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${agents[random(agents.length)]}\r\nAccept-Language: ${languages[random(languages.length)]}\r\n${referer}\r\n`));
  }
} else requests.push(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${UA}\r\n\r\n`));
let next = 0;

/** `total` visits over `connections` keep-alive connections; resolves to the count of answers that were not 30x. */
function load(total: number, connections = 16): Promise<number> {
  let sent = 0;
  let done = 0;
  let bad = 0;
  return new Promise((resolve) => {
    for (let c = 0; c < connections; c++) {
      const answered = (text: string) => {
        if (!text.startsWith("HTTP/1.1 30")) bad++;
        done++;
        if (done === total) resolve(bad);
        else setImmediate(send);
      };
      const socket = new Duplex({
        read() {},
        write(chunk: Buffer, _encoding, callback) {
          const text = chunk.toString("latin1");
          if (text.startsWith("HTTP/1.1 ")) answered(text);
          callback();
        },
        writev(chunks: Array<{ chunk: Buffer }>, callback) {
          answered(Buffer.concat(chunks.map((c) => c.chunk)).toString("latin1"));
          callback();
        },
      });
      Object.assign(socket, { remoteAddress: "127.0.0.1", remotePort: 40000 + c, setTimeout: () => socket, setNoDelay: () => socket, setKeepAlive: () => socket });
      const send = () => {
        if (sent < total) {
          sent++;
          socket.push(requests[next++ % requests.length]);
        }
      };
      running.server.emit("connection", socket);
      send();
    }
  });
}

const callgrind = (...args: string[]) => {
  if (process.env.VG) execFileSync("callgrind_control", [...args, String(process.pid)]);
};
const warmBad = await load(Number(process.env.WARM ?? 100000));
if (warmBad) console.error(`${warmBad} answers that were not redirects in the warm-up`);
const results: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  callgrind("-z");
  callgrind("-i", "on");
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await load(N);
  const used = process.cpuUsage(cpu);
  const ended = process.hrtime.bigint();
  callgrind("-i", "off");
  callgrind("-d", `round${round}`);
  const perVisit = (used.user + used.system) / N;
  results.push(perVisit);
  if (process.env.WINDOW) appendFileSync(process.env.WINDOW, `${JSON.stringify({ window: [Number(started / 1000n), Number(ended / 1000n)] })}\n`);
  console.log(`round ${round}: cpu ${perVisit.toFixed(3)} µs/visit, wall ${(Number(ended - started) / 1000 / N).toFixed(3)} µs/visit`);
}
results.sort((a, b) => a - b);
console.log(`RESULT ${path}${mode ? ` ${mode}` : ""}: min ${results[0]?.toFixed(3)} median ${results[Math.floor(results.length / 2)]?.toFixed(3)} µs/visit`);
await running.close();
await admin.unsafe(`drop database ${dbName} with (force)`);
await admin.end();
process.exit(0);
