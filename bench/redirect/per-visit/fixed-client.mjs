// node fixed-client.mjs <port> <path> <n> [connections]: exactly n GET requests with a browser User-Agent over
// keep-alive connections (8 by default), for instruction counts of a fixed number of visits
import http from "node:http";
const [port, path, nStr, cStr] = process.argv.slice(2);
const N = Number(nStr),
  C = Number(cStr ?? 8);
const agent = new http.Agent({ keepAlive: true, maxSockets: C });
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
let sent = 0,
  done = 0,
  bad = 0;
const t0 = Date.now();
await new Promise((resolve) => {
  const one = () => {
    if (sent >= N) return;
    sent++;
    http.get({ port, host: "127.0.0.1", path, agent, headers: { host: `localhost:${port}`, "user-agent": UA } }, (res) => {
      if (res.statusCode !== 302) bad++;
      res.resume();
      res.on("end", () => {
        if (++done === N) resolve();
        else one();
      });
    });
  };
  for (let i = 0; i < C; i++) one();
});
console.log(`${N} requests in ${Date.now() - t0} ms, ${bad} not 302`);
agent.destroy();
