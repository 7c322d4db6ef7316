// The machine's practical ceiling for a redirect: node:http answering a 302 from a Map lookup.
import { createServer } from "node:http";

const links = new Map([["/plain", "https://example.com/destination"]]);
const port = Number(process.argv[2]);
createServer((req, res) => {
  const location = links.get(req.url ?? "/");
  if (location) {
    res.writeHead(302, { location, "cache-control": "private, no-store", "content-length": 0 });
    res.end();
  } else {
    res.writeHead(404, { "content-length": 0 });
    res.end();
  }
}).listen(port, "127.0.0.1", () => console.log("is running at"));
