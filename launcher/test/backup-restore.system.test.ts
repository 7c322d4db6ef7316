import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";
import { api, countsOf, listAll, parseCounts, runRestoreCli, visit, type Link } from "./backup-helpers.ts";
import { spawnService, type ServiceProcess } from "./helpers.ts";

/**
 * CONTRACT §22, the test it asks for: a backup taken while visits (real HTTP redirects, so the visitor
 * side's click buffer is in play) and link creates run, restored with `pnpm restore` into an empty
 * DATA_DIR, and a second service started on it finds every link, key, domain and count of the moment of
 * the backup.
 *
 * "The moment" is the endpoint's exclusive copy: PGlite runs one statement at a time, and the copy is
 * taken inside one transaction, so requests that reach the database meanwhile wait and run after it.
 * The endpoint counts users, keys, domains, links and clicks inside that same transaction and answers
 * them in `Shortener-Backup-Counts`; the restored service must report exactly those. What the test saw
 * itself bounds the rest exactly, whatever the timing: every link created (and every visit answered)
 * before the backup was asked for is in it — the visits because the endpoint writes the click buffer
 * first; the links it holds are exactly the first ones of the first service, in id order, with the
 * same alias, URL and domain; no link has more clicks than the first service counted in the end.
 */
const ADMIN_KEY = `shk_${"K".repeat(40)}`;
const SLOW = 300_000;
const VISITORS = 6;
const CREATORS = 2;
/** How long the load runs before the backup is asked for, and after it is answered. */
const LOAD_MS = 2_000;

const dir = mkdtempSync(join(tmpdir(), "backup-restore-"));
const services: ServiceProcess[] = [];
afterAll(async () => {
  for (const service of services) await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startService(dataDir: string): Promise<{ base: string; port: number }> {
  const port = await freePort();
  const service = spawnService({
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    PORT: String(port),
    ADMIN_API_KEY: ADMIN_KEY,
    DOMAIN_VERIFICATION: "off",
    RATE_LIMIT_PER_MINUTE: "1000000",
    ACCESS_LOG: "off",
    LOG_LEVEL: "info",
  });
  services.push(service);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (service.child.exitCode !== null) throw new Error(`the service exited: ${service.output()}`);
    const ok = await fetch(`${base}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return { base, port };
    if (Date.now() > deadline) throw new Error(`the service did not answer: ${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const runRestore = (file: string, dataDir: string) => runRestoreCli([file], { DATA_DIR: dataDir });

describe("a backup under load, restored (CONTRACT §22)", () => {
  it(
    "the second service finds every link, key, domain and count of the moment of the backup",
    async () => {
      const first = await startService(join(dir, "first"));
      const base = first.base;
      // Before the load: two more users with a key each, named keys, two more domains, links on each domain.
      const users = [];
      for (const name of ["Ann", "Bob"]) users.push((await api(base, ADMIN_KEY, "POST", "/api/v1/users", { email: `${name.toLowerCase()}@example.com`, name })).data.api_key as string);
      const named = [];
      for (const name of ["reporting", "deploys"]) named.push((await api(base, ADMIN_KEY, "POST", "/api/v1/account/api-keys", { name, scopes: "links:read stats:read" })).data.api_key as string);
      named.push((await api(base, users[0] ?? "", "POST", "/api/v1/account/api-keys", { name: "ann's tool", scopes: "links:read" })).data.api_key as string);
      for (const name of ["go.example", "s.example"]) await api(base, ADMIN_KEY, "POST", "/api/v1/domains", { name });
      await api(base, users[1] ?? "", "POST", "/api/v1/domains", { name: "bob.example" });
      const domains = await listAll<{ id: number; name: string }>(base, ADMIN_KEY, "/api/v1/domains");
      const seeded: Link[] = [];
      for (let i = 0; i < 30; i++) {
        const domain = domains[i % domains.length];
        if (!domain) throw new Error("no domain");
        seeded.push((await api(base, ADMIN_KEY, "POST", "/api/v1/links", { url: `https://example.com/seed/${i}`, alias: `seed${i}`, domain_id: String(domain.id) })).data as Link);
      }
      const bobDomain = (await listAll<{ id: number; name: string }>(base, users[1] ?? "", "/api/v1/domains"))[0];
      seeded.push((await api(base, users[1] ?? "", "POST", "/api/v1/links", { url: "https://example.com/bob", alias: "bob", domain_id: String(bobDomain?.id) })).data as Link);

      // The load: visitors on the seeded links, creators adding links, until told to stop.
      let isBackupAsked = false;
      let isStopping = false;
      /** Visits answered before the backup was asked for, per link id; and every visit answered. */
      const answeredBefore = new Map<number, number>();
      let visitsAnswered = 0;
      const created: Array<{ link: Link; isBeforeBackup: boolean }> = [];
      const agent = new Agent({ keepAlive: true, maxSockets: VISITORS });
      /** A failed visit or create stops the load; the test fails with it once the load is over. */
      const failures: unknown[] = [];
      const stopOnFailure = (error: unknown) => {
        failures.push(error);
        isStopping = true;
      };
      const visitors = Array.from({ length: VISITORS }, async (_, v) => {
        for (let n = v; !isStopping; n++) {
          const link = seeded[n % seeded.length] as Link;
          const answer = await visit(agent, base, link.domain.name, link.alias);
          expect([answer.status, answer.location]).toEqual([302, link.url]);
          visitsAnswered++;
          if (!isBackupAsked) answeredBefore.set(link.id, (answeredBefore.get(link.id) ?? 0) + 1);
        }
      }).map((run) => run.catch(stopOnFailure));
      const creators = Array.from({ length: CREATORS }, async (_, c) => {
        for (let n = 0; !isStopping; n++) {
          const domain = domains[n % domains.length] as { id: number };
          const link = (await api(base, ADMIN_KEY, "POST", "/api/v1/links", { url: `https://example.com/load/${c}/${n}`, domain_id: String(domain.id) })).data as Link;
          created.push({ link, isBeforeBackup: !isBackupAsked });
        }
      }).map((run) => run.catch(stopOnFailure));
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));

      isBackupAsked = true;
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/admin/backup`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const headersMs = performance.now() - started;
      expect(res.status).toBe(200);
      const file = join(dir, /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "missing-name");
      await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
      const backupMs = performance.now() - started;
      const atBackup = parseCounts(res.headers.get("shortener-backup-counts") ?? "");
      const createdBefore = created.filter((c) => c.isBeforeBackup).length;
      const visitsBefore = [...answeredBefore.values()].reduce((a, b) => a + b, 0);

      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      isStopping = true;
      await Promise.all([...visitors, ...creators]);
      agent.destroy();
      expect(failures).toEqual([]);
      // The first service's own final state, once its click buffer has been written (it flushes every second).
      const keys = { admin: ADMIN_KEY, users };
      let final = await countsOf(base, keys);
      for (const deadline = Date.now() + 30_000; final.counts.clicks < visitsAnswered && Date.now() < deadline; final = await countsOf(base, keys))
        await new Promise((resolve) => setTimeout(resolve, 500));
      expect(final.counts.clicks).toBe(visitsAnswered);
      console.log(/\{[^\n]*"backup taken"[^\n]*\}/.exec(services.at(-1)?.output() ?? "")?.[0]);
      const firstService = services.pop();
      await firstService?.stop();

      // Restore into an empty DATA_DIR, then a second service on it.
      const restoredDir = join(dir, "restored");
      const restore = await runRestore(file, restoredDir);
      expect([restore.code, restore.stderr]).toEqual([0, ""]);
      const second = await startService(restoredDir);
      const after = await countsOf(second.base, keys);

      console.log(
        [
          `load: ${VISITORS} visitors, ${CREATORS} creators; before the backup was asked for: ${visitsBefore} visits answered, ${createdBefore} links created; in all: ${visitsAnswered} visits, ${created.length} links created`,
          `backup: ${(statSync(file).size / 1024).toFixed(0)} KiB in ${backupMs.toFixed(0)} ms, its headers after ${headersMs.toFixed(0)} ms (${file.split("/").at(-1)})`,
          `counts at the moment of the backup (Shortener-Backup-Counts): ${JSON.stringify(atBackup)}`,
          `pnpm restore: ${restore.stdout.trim()}`,
          `counts the restored service reports:                      ${JSON.stringify(after.counts)}`,
          `counts the first service reported at its end:             ${JSON.stringify(final.counts)}`,
        ].join("\n"),
      );

      // Exactly the counts of the moment, on every side.
      expect(after.counts).toEqual(atBackup);
      expect(restore.stdout).toContain(`users=${atBackup.users}, api_keys=${atBackup.api_keys}, domains=${atBackup.domains}, links=${atBackup.links}, clicks=${atBackup.clicks}.`);
      // The load really ran across the backup.
      expect(created.length).toBeGreaterThan(createdBefore);
      expect(final.counts.links).toBeGreaterThan(atBackup.links);
      expect(final.counts.clicks).toBeGreaterThan(atBackup.clicks);
      expect(visitsBefore).toBeGreaterThan(0);

      // Links: the first ones of the first service, in id order, unchanged; every one created before the backup was asked for.
      const identity = ({ id, alias, url, domain }: Link) => ({ id, alias, url, domain: domain.name });
      expect(after.links.map(identity)).toEqual(final.links.slice(0, after.links.length).map(identity));
      const restoredIds = new Set(after.links.map((l) => l.id));
      for (const { link, isBeforeBackup } of created) if (isBeforeBackup) expect(restoredIds.has(link.id)).toBe(true);
      // Clicks: at least every visit answered before the backup was asked for, at most what the first service counted in the end.
      const finalClicks = new Map(final.links.map((l) => [l.id, l.clicks]));
      for (const link of after.links) {
        expect(link.clicks).toBeGreaterThanOrEqual(answeredBefore.get(link.id) ?? 0);
        expect(link.clicks).toBeLessThanOrEqual(finalClicks.get(link.id) ?? 0);
      }
      // Domains: every one, and each serves its links on the second service.
      expect(after.domains.map((d) => d.name).sort()).toEqual(final.domains.map((d) => d.name).sort());
      const agent2 = new Agent({ keepAlive: false });
      for (const link of seeded) expect(await visit(agent2, second.base, link.domain.name, link.alias)).toEqual({ status: 302, location: link.url });
      // Keys: every one still works (the named ones within their scopes).
      for (const key of named) expect((await fetch(`${second.base}/api/v1/links`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      for (const key of [ADMIN_KEY, ...users]) expect((await fetch(`${second.base}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    },
    SLOW,
  );
});
