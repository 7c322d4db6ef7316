import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, queryRows, type Database } from "@shortener/db";
import { migrateBefore, openEmptyDb } from "@shortener/db/testing";
import {
  createDomain,
  createImport,
  createLink,
  createTxtLookup,
  findDomainByHost,
  getDomain,
  loadImportScope,
  updateLink,
  checkImportRow,
  RECORD_NOT_FOUND,
  verificationRecordOf,
  verifyDomain,
  type Domain,
  type DomainPolicy,
} from "@shortener/core";
import { createTestUser, openTestDb, startTestDns, unique, validationFields as fieldErrors, type TestDns, type TestUser } from "@shortener/core/testing";

let database: Database;
let dns: TestDns;
beforeAll(async () => {
  [database, dns] = await Promise.all([openTestDb(), startTestDns()]);
});
afterAll(async () => {
  await Promise.all([database?.close(), dns?.close()]);
});

const DNS: DomainPolicy = { verification: "dns", reservedHosts: [] };
const sys = () => ({ db: database.db, now: () => new Date() });
const lookup = () => createTxtLookup({ servers: [dns.server], timeoutMs: 1_000 });

async function claim(user: TestUser, name = `${unique("c")}.example`): Promise<Domain> {
  return createDomain({ ctx: user.ctx, input: { name }, policy: DNS });
}

function publish(domain: Domain, value?: string): void {
  const record = verificationRecordOf(domain);
  if (!record) throw new Error("the domain is verified already");
  dns.setTxt(record.name, [value ?? record.value]);
}

describe("creating a domain (CONTRACT §14)", () => {
  it("an admin's domain is verified at once; another user's starts unverified with its TXT record; off verifies every domain", async () => {
    const admin = await createTestUser(database.db, { role: "admin" });
    const user = await createTestUser(database.db);
    const own = await createDomain({ ctx: admin.ctx, input: { name: `${unique("a")}.example` }, policy: DNS });
    expect(own.verifiedAt).toBeInstanceOf(Date);
    expect(verificationRecordOf(own)).toBeNull();

    const claimed = await claim(user, `${unique("u")}.example:8443`);
    expect(claimed.verifiedAt).toBeNull();
    const record = verificationRecordOf(claimed);
    expect(record).toEqual({ type: "TXT", name: `_shortener-challenge.${claimed.name.replace(/:8443$/, "")}`, value: expect.stringMatching(/^shortener-verify=[0-9A-Za-z]{32}$/) });
    expect(verificationRecordOf(await claim(user))?.value).not.toBe(record?.value);

    const trusted = await createDomain({ ctx: user.ctx, input: { name: `${unique("o")}.example` }, policy: { verification: "off", reservedHosts: [] } });
    expect(trusted.verifiedAt).toBeInstanceOf(Date);
    // The default policy of the verb is the safe one.
    expect((await createDomain({ ctx: user.ctx, input: { name: `${unique("d")}.example` } })).verifiedAt).toBeNull();
  });

  it("an unproven claim takes no name from anyone: two users may claim one name; a verified name, or the caller's own, is taken", async () => {
    const [a, b, c] = await Promise.all([createTestUser(database.db), createTestUser(database.db), createTestUser(database.db)]);
    const name = `${unique("both")}.example`;
    const first = await claim(a, name);
    const second = await claim(b, name);
    expect(first.id).not.toBe(second.id);
    expect(await fieldErrors(claim(a, name))).toEqual({ name: ["The name has already been taken."] });

    publish(second);
    expect((await verifyDomain({ ctx: b.ctx, id: second.id, lookupTxt: lookup(), policy: DNS })).verifiedAt).toBeInstanceOf(Date);
    // Now it serves: nobody may claim it any more, and the other claim can never be verified.
    expect(await fieldErrors(claim(c, name))).toEqual({ name: ["The name has already been taken."] });
    publish(first);
    expect(await fieldErrors(verifyDomain({ ctx: a.ctx, id: first.id, lookupTxt: lookup(), policy: DNS }))).toEqual({ name: ["The name has already been taken."] });
    expect((await getDomain({ ctx: a.ctx, id: first.id })).verifiedAt).toBeNull();
  });
});

describe("verifying a domain through a real DNS server on loopback", () => {
  it("finds the TXT record (among others, or split into strings), marks the domain verified and clears its token", async () => {
    const user = await createTestUser(database.db);
    const domain = await claim(user);
    const record = verificationRecordOf(domain);
    if (!record) throw new Error("unverified expected");
    dns.setTxt(record.name, ["v=spf1 -all", [record.value.slice(0, 10), record.value.slice(10)]]);
    const asked = dns.asked.length;
    const verified = await verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: lookup(), policy: DNS });
    expect(dns.asked.slice(asked)).toContain(record.name.toLowerCase());
    expect(verified).toMatchObject({ id: domain.id, verificationToken: null });
    expect(verified.verifiedAt).toBeInstanceOf(Date);
    expect(verificationRecordOf(verified)).toBeNull();
    // Verifying again asks nothing and answers the domain as it is.
    const before = dns.asked.length;
    expect((await verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: lookup(), policy: DNS })).verifiedAt).toEqual(verified.verifiedAt);
    expect(dns.asked.length).toBe(before);
  });

  it.each<[string, (domain: Domain) => void]>([
    ["no record at all (NXDOMAIN)", () => {}],
    ["a record with another token", (d) => publish(d, "shortener-verify=someoneelse")],
    ["the token without its prefix", (d) => publish(d, d.verificationToken ?? "")],
    ["the record at the host itself instead of the challenge name", (d) => dns.setTxt(d.name, [verificationRecordOf(d)?.value ?? ""])],
    ["a resolver answering SERVFAIL", (d) => (publish(d), dns.setMode("servfail"))],
    ["a resolver that never answers (bounded by the lookup's time limit)", (d) => (publish(d), dns.setMode("silent"))],
  ])("422 on name when there is %s, and the domain stays unverified", async (_case, arrange) => {
    const user = await createTestUser(database.db);
    const domain = await claim(user);
    arrange(domain);
    const started = Date.now();
    try {
      expect(await fieldErrors(verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: lookup(), policy: DNS }))).toEqual({ name: [RECORD_NOT_FOUND] });
    } finally {
      dns.setMode("answer");
    }
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await getDomain({ ctx: user.ctx, id: domain.id })).verifiedAt).toBeNull();
  });

  it("a resolver that is not there at all is the same 422", async () => {
    const user = await createTestUser(database.db);
    const domain = await claim(user);
    const nowhere = createTxtLookup({ servers: ["127.0.0.1:9"], timeoutMs: 800 });
    expect(await fieldErrors(verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: nowhere, policy: DNS }))).toEqual({ name: [RECORD_NOT_FOUND] });
  });

  it("another user's domain is not found; with verification off, or for an admin, no lookup is made", async () => {
    const [owner, stranger] = await Promise.all([createTestUser(database.db), createTestUser(database.db)]);
    const domain = await claim(owner);
    publish(domain);
    await expect(verifyDomain({ ctx: stranger.ctx, id: domain.id, lookupTxt: lookup(), policy: DNS })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const other = await claim(owner);
    const before = dns.asked.length;
    const verified = await verifyDomain({ ctx: owner.ctx, id: other.id, lookupTxt: lookup(), policy: { verification: "off", reservedHosts: [] } });
    expect(verified.verifiedAt).toBeInstanceOf(Date);
    expect(dns.asked.length).toBe(before);
  });

  it("the claim rules are checked again: a host an admin took meanwhile, or one reserved since, is refused", async () => {
    // Personal workspaces' ids need not be their users' (other workspaces are made in between): skip one.
    await database.db.execute(sql`select nextval(pg_get_serial_sequence('workspaces', 'id'))`);
    const [admin, user] = await Promise.all([createTestUser(database.db, { role: "admin" }), createTestUser(database.db)]);
    const host = `${unique("late")}.example`;
    const domain = await claim(user, `${host}:8080`);
    publish(domain);
    const reserved: DomainPolicy = { verification: "dns", reservedHosts: [host] };
    expect(await fieldErrors(verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: lookup(), policy: reserved }))).toEqual({ name: ["The name is reserved."] });
    await createDomain({ ctx: admin.ctx, input: { name: host } });
    expect(await fieldErrors(verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: lookup(), policy: DNS }))).toEqual({ name: ["The name is reserved."] });
  });
});

describe("an unverified domain takes links but neither serves nor blocks", () => {
  it("its host is unknown to the visitor side until it is verified", async () => {
    const user = await createTestUser(database.db);
    const domain = await claim(user);
    const link = await createLink({ ctx: user.ctx, input: { url: "https://prepared.example/", domain_id: domain.id } });
    expect(link.domain.id).toBe(domain.id);
    expect(await findDomainByHost(sys(), domain.name)).toBeNull();
    publish(domain);
    await verifyDomain({ ctx: user.ctx, id: domain.id, lookupTxt: lookup(), policy: DNS });
    expect(await findDomainByHost(sys(), domain.name.toUpperCase())).toMatchObject({ id: domain.id, workspaceId: user.workspaceId });
  });

  it("another user's unverified domain is no loop for a link (create, update, import); one's own is; a verified one is for everyone", async () => {
    const [squatter, other] = await Promise.all([createTestUser(database.db), createTestUser(database.db)]);
    const claimed = await claim(squatter, `${unique("sq")}.example`);
    const home = await claim(other);
    const url = `https://${claimed.name}/page`;
    // Not blocked: another user's unproven claim.
    const link = await createLink({ ctx: other.ctx, input: { url, domain_id: home.id, expiration_url: `http://${claimed.name}/gone` } });
    expect(link.url).toBe(url);
    expect((await updateLink({ ctx: other.ctx, id: link.id, input: { url: `${url}?v=2` } })).url).toBe(`${url}?v=2`);
    const scope = await loadImportScope(database.db, { jobId: 0, workspaceId: other.workspaceId, defaultDomainId: home.id });
    expect(scope.servedNames.has(claimed.name)).toBe(false);
    expect(checkImportRow({ line: 2, fields: { url } }, scope, new Date()).ok).toBe(true);
    // An index page on the other user's own domain may point there too.
    await expect(createDomain({ ctx: other.ctx, input: { name: `${unique("ip")}.example`, index_page: url }, policy: DNS })).resolves.toBeTruthy();
    // The squatter's own claim counts for the squatter (it would loop once verified).
    expect(await fieldErrors(createLink({ ctx: squatter.ctx, input: { url, domain_id: claimed.id } }))).toEqual({ url: ["The URL must not point to a domain served by this service."] });
    const ownScope = await loadImportScope(database.db, { jobId: 0, workspaceId: squatter.workspaceId, defaultDomainId: claimed.id });
    expect(ownScope.servedNames.has(claimed.name)).toBe(true);

    publish(claimed);
    await verifyDomain({ ctx: squatter.ctx, id: claimed.id, lookupTxt: lookup(), policy: DNS });
    expect(await fieldErrors(createLink({ ctx: other.ctx, input: { url, domain_id: home.id } }))).toEqual({ url: ["The URL must not point to a domain served by this service."] });
    const after = await loadImportScope(database.db, { jobId: 0, workspaceId: other.workspaceId, defaultDomainId: home.id });
    expect(checkImportRow({ line: 2, fields: { url } }, after, new Date()).ok).toBe(false);
  });

  it("an import job's links may go to an unverified domain of one's own", async () => {
    const user = await createTestUser(database.db);
    const domain = await claim(user);
    const { job } = await createImport({ ctx: user.ctx, input: { domain_id: domain.id, total_rows: 1 } });
    expect(job.id).toBeGreaterThan(0);
  });
});

describe("the migration", () => {
  it("keeps the domains of an existing database serving: they migrate as verified", async () => {
    // The committed migrations up to (not including) domain verification.
    const empty = await openEmptyDb();
    try {
      await migrateBefore(empty, "_domain_verification");
      await empty.db.execute(sql`insert into users (email, name, role) values ('old@example.test', 'Old', 'user')`);
      await empty.db.execute(sql`insert into domains (user_id, name) select id, 'old-domain.example:8080' from users`);

      await migrate(empty);
      const found = await findDomainByHost({ db: empty.db, now: () => new Date() }, "old-domain.example:8080");
      expect(found?.name).toBe("old-domain.example:8080");
      const [row] = await queryRows<{ verified: boolean; token: string | null }>(empty.db, sql`select verified_at is not null as verified, verification_token as token from domains`);
      expect(row).toEqual({ verified: true, token: null });
    } finally {
      await empty.close();
    }
  });
});
