import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pino from "pino";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { api, countsOf, listAll, visit, type Link } from "./backup-helpers.ts";
import { startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §22 on PostgreSQL: the `pg_dump` / `pg_restore` commands of docs/backups.md, as written
 * there, on the database of a running service; a second service started on the restored database finds
 * every link, key, domain and click count.
 */
const run = promisify(execFile);
const ADMIN_KEY = `shk_${"P".repeat(40)}`;
const SLOW = 180_000;
const DOCS = readFileSync(new URL("../../docs/backups.md", import.meta.url), "utf8");
/** The commands as docs/backups.md gives them; the test runs exactly these, with its own names filled in. */
const DUMP = 'pg_dump --format=custom --no-owner --file="$BACKUP" "$DATABASE_URL"';
const RESTORE = 'pg_restore --no-owner --exit-on-error --dbname="$NEW_DATABASE_URL" "$BACKUP"';

const dir = mkdtempSync(join(tmpdir(), "pg-backup-"));
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/** Runs one of the documented commands through a shell, with `env` as its variables. */
async function shell(command: string, env: Record<string, string>): Promise<void> {
  await run("/bin/sh", ["-c", command], { env: { ...process.env, ...env } });
}

describe("pg_dump and pg_restore, as docs/backups.md says", () => {
  it("the docs give the commands this test runs", () => {
    expect(DOCS).toContain(DUMP);
    expect(DOCS).toContain(RESTORE);
  });

  it(
    "a dump of a running service's database restores into a fresh one, where a second service finds everything",
    async () => {
      const first: TestServer = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, DOMAIN_VERIFICATION: "off", RATE_LIMIT_PER_MINUTE: "100000" });
      closers.push(() => first.close());
      const databaseUrl = first.settings.DATABASE_URL ?? "";
      expect(databaseUrl).toMatch(/^postgres/);
      const base = first.base;
      const users: string[] = [];
      for (const name of ["Ann", "Bob"]) users.push((await api(base, ADMIN_KEY, "POST", "/api/v1/users", { email: `${name.toLowerCase()}@example.com`, name })).data.api_key as string);
      const named = (await api(base, ADMIN_KEY, "POST", "/api/v1/account/api-keys", { name: "reporting", scopes: "links:read" })).data.api_key as string;
      await api(base, ADMIN_KEY, "POST", "/api/v1/domains", { name: "go.example" });
      await api(base, users[1] ?? "", "POST", "/api/v1/domains", { name: "bob.example" });
      const domains = await listAll<{ id: number; name: string }>(base, ADMIN_KEY, "/api/v1/domains");
      const links: Link[] = [];
      for (let i = 0; i < 20; i++) {
        const domain = domains[i % domains.length] as { id: number };
        links.push((await api(base, ADMIN_KEY, "POST", "/api/v1/links", { url: `https://example.com/pg/${i}`, alias: `pg${i}`, domain_id: String(domain.id) })).data as Link);
      }
      const bobDomain = (await listAll<{ id: number }>(base, users[1] ?? "", "/api/v1/domains"))[0];
      links.push((await api(base, users[1] ?? "", "POST", "/api/v1/links", { url: "https://example.com/bob", alias: "bob", domain_id: String(bobDomain?.id) })).data as Link);
      // Visits: link i gets i + 1 of them.
      let visits = 0;
      for (const [i, link] of links.entries()) {
        for (let n = 0; n <= i; n++) {
          expect(await visit(undefined, base, link.domain.name, link.alias)).toEqual({ status: 302, location: link.url });
          visits++;
        }
      }
      const keys = { admin: ADMIN_KEY, users };
      let before = await countsOf(base, keys);
      for (const deadline = Date.now() + 30_000; before.counts.clicks < visits && Date.now() < deadline; before = await countsOf(base, keys)) await new Promise((resolve) => setTimeout(resolve, 300));
      expect(before.counts.clicks).toBe(visits);

      // The documented dump, of the running service's database; then a fresh database and the documented restore.
      const backup = join(dir, "shortener.dump");
      const started = performance.now();
      await shell(DUMP, { BACKUP: backup, DATABASE_URL: databaseUrl });
      const dumpMs = performance.now() - started;
      const name = `shortener_restored_${randomBytes(6).toString("hex")}`;
      const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database "${name}" template template0`);
      closers.push(async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      });
      const restoredUrl = Object.assign(new URL(databaseUrl), { pathname: `/${name}` }).toString();
      await shell(RESTORE, { BACKUP: backup, NEW_DATABASE_URL: restoredUrl });

      const port = await freePort();
      const second: RunningServer = await startServer(parseEnv({ DATABASE_URL: restoredUrl, PORT: String(port), ADMIN_API_KEY: ADMIN_KEY, DOMAIN_VERIFICATION: "off" }), pino({ level: "silent" }));
      closers.push(() => second.close());
      const secondBase = `http://127.0.0.1:${port}`;
      const after = await countsOf(secondBase, keys);
      console.log(
        [
          `pg_dump -Fc: ${(statSync(backup).size / 1024).toFixed(0)} KiB in ${dumpMs.toFixed(0)} ms`,
          `counts the first service reported:    ${JSON.stringify(before.counts)}`,
          `counts the restored service reports:  ${JSON.stringify(after.counts)}`,
        ].join("\n"),
      );
      expect(after.counts).toEqual(before.counts);
      const identity = ({ id, alias, url, domain, clicks }: Link) => ({ id, alias, url, domain: domain.name, clicks });
      expect(after.links.map(identity)).toEqual(before.links.map(identity));
      expect(after.links.map((l) => l.clicks)).toEqual(links.map((_, i) => i + 1));
      expect(after.domains.map((d) => d.name).sort()).toEqual(before.domains.map((d) => d.name).sort());
      for (const link of links) expect(await visit(undefined, secondBase, link.domain.name, link.alias)).toEqual({ status: 302, location: link.url });
      expect((await fetch(`${secondBase}/api/v1/links`, { headers: { authorization: `Bearer ${named}` } })).status).toBe(200);
      for (const key of [ADMIN_KEY, ...users]) expect((await fetch(`${secondBase}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      // New writes go on where the old ones stopped: the restored sequences are the dumped ones.
      const next = (await api(secondBase, ADMIN_KEY, "POST", "/api/v1/links", { url: "https://example.com/after", domain_id: String(domains[0]?.id) })).data as Link;
      expect(next.id).toBeGreaterThan(Math.max(...links.map((l) => l.id)));
    },
    SLOW,
  );
});
