import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * The dashboard's static files at `/app/` (CONTRACT §19, docs/adr/0028-dashboard.md): the web app's
 * `dist/`, read once into memory (with gzip copies of text files). Hashed files under `assets/` are
 * cached for a year (`immutable`); `index.html` is revalidated every time. A path with no file and no
 * extension is a screen of the app: `index.html` (SPA fallback); a missing file with an extension: 404.
 */
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".webmanifest", ".txt"]);

/** The dashboard page's CSP: nothing but its own files and its own API; never framed (CONTRACT §15). */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

type StaticFile = { body: Buffer; gzip: Buffer | undefined; type: string; cacheControl: string };

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function loadFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const path of walk(dir)) {
    const name = relative(dir, path).split(sep).join("/");
    const ext = extname(name).toLowerCase();
    const body = readFileSync(path);
    const cacheControl = name.startsWith("assets/") ? "public, max-age=31536000, immutable" : name === "index.html" ? "no-cache" : "public, max-age=3600";
    files.set(name, { body, gzip: COMPRESSIBLE.has(ext) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined, type: TYPES[ext] ?? "application/octet-stream", cacheControl });
  }
  return files;
}

const notBuilt = "<!doctype html><meta charset=utf-8><title>Dashboard not built</title><p>The dashboard is not built: run <code>pnpm build</code> (or <code>pnpm start</code>).</p>";

export function dashboardRoutes(app: FastifyInstance, dir: string | undefined): void {
  let files: Map<string, StaticFile> | null | undefined;
  const filesOf = () => {
    if (files === undefined) {
      try {
        files = dir && statSync(join(dir, "index.html")).isFile() ? loadFiles(dir) : null;
      } catch {
        files = null;
      }
    }
    return files;
  };

  const send = (request: FastifyRequest, reply: FastifyReply, file: StaticFile) => {
    const isGzip = file.gzip !== undefined && /\bgzip\b/i.test(String(request.headers["accept-encoding"] ?? ""));
    reply.header("content-type", file.type).header("cache-control", file.cacheControl).header("x-content-type-options", "nosniff").header("vary", "accept-encoding");
    if (file.type.startsWith("text/html")) reply.header("content-security-policy", DASHBOARD_CSP).header("referrer-policy", "same-origin");
    if (isGzip) reply.header("content-encoding", "gzip");
    return reply.send(isGzip ? file.gzip : file.body);
  };

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    // `/app` → `/app/`, so the app's relative URLs resolve under it.
    if (path === "/app") return reply.redirect(`/app/${request.url.slice(4)}`, 301);
    const found = filesOf();
    if (!found) return reply.code(404).header("content-type", "text/html; charset=utf-8").header("content-security-policy", DASHBOARD_CSP).send(notBuilt);
    let name: string;
    try {
      name = decodeURIComponent(path.slice("/app/".length));
    } catch {
      name = "";
    }
    const file = found.get(name === "" ? "index.html" : name);
    if (file) return send(request, reply, file);
    const index = found.get("index.html");
    if (extname(name) !== "" || !index) return reply.code(404).header("content-type", "text/plain; charset=utf-8").send("Not found.");
    return send(request, reply, index);
  };

  app.get("/app", serve);
  app.get("/app/*", serve);
}
