// What the backup tests read from a service's API: its lists, page by page, and the counts a backup
// reports; visits as a browser makes them; and the restore CLI, run as `pnpm restore` runs it.
import { spawn } from "node:child_process";
import { request, type Agent } from "node:http";
import { fileURLToPath } from "node:url";

/** A browser's User-Agent: its visits are counted (bots' are not). */
export const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

export type Link = { id: number; alias: string; url: string; domain: { id: number; name: string }; clicks: number };
export type Counts = { users: number; api_keys: number; domains: number; links: number; clicks: number };

/** A REST answer's whole body, with the key as bearer and `form` form-encoded; a status of 300 or more throws. */
export async function api(base: string, key: string, method: string, path: string, form?: Record<string, string>): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  const body = (await res.json()) as { data: unknown; meta?: { total: number } };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Every page of a list, in id order. */
export async function listAll<T extends { id: number }>(base: string, key: string, path: string): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const body = await api(base, key, "GET", `${path}?per_page=100&page=${page}`);
    out.push(...(body.data as T[]));
    if (out.length >= (body.meta?.total ?? 0) || (body.data as T[]).length === 0) break;
  }
  return out.sort((a, b) => a.id - b.id);
}

/** `Shortener-Backup-Counts` (and the restore's line) as numbers. */
export function parseCounts(header: string): Counts {
  const entries = header.split(", ").map((part) => part.split("=") as [string, string]);
  return Object.fromEntries(entries.map(([name, value]) => [name, Number(value)])) as Counts;
}

/** Users, keys, domains, links and clicks as a service's API reports them to the admin and each user. */
export async function countsOf(base: string, keys: { admin: string; users: string[] }): Promise<{ counts: Counts; links: Link[]; domains: Array<{ id: number; name: string }> }> {
  const users = (await api(base, keys.admin, "GET", "/api/v1/users?per_page=100")).meta.total as number;
  let links: Link[] = [];
  let domains: Array<{ id: number; name: string }> = [];
  let apiKeys = 0;
  for (const key of [keys.admin, ...keys.users]) {
    links = links.concat(await listAll<Link>(base, key, "/api/v1/links"));
    domains = domains.concat(await listAll<{ id: number; name: string }>(base, key, "/api/v1/domains"));
    // Each user's §9 key plus its named keys.
    apiKeys += 1 + ((await api(base, key, "GET", "/api/v1/account/api-keys?per_page=100")).meta.total as number);
  }
  links.sort((a, b) => a.id - b.id);
  return { counts: { users, api_keys: apiKeys, domains: domains.length, links: links.length, clicks: links.reduce((sum, link) => sum + link.clicks, 0) }, links, domains };
}

/** A visit with its own Host header: the status and Location it got. */
export function visit(agent: Agent | undefined, base: string, host: string, alias: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/${alias}`, { agent, headers: { host, "user-agent": BROWSER } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * `pnpm restore`'s CLI (launcher/src/restore-cli.ts) run as the script runs it, from the repository's
 * root, with no database settings but `env`'s: its exit code and what it printed.
 */
export function runRestoreCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "launcher/src/restore-cli.ts", ...args], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, DATABASE_URL: "", DATA_DIR: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += String(chunk)));
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
