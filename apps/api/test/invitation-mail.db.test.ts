import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "./helpers.ts";
import { cookieOf, createTeam, injectJson } from "./teams.ts";

/**
 * CONTRACT §24: with SMTP_URL set, an invitation with an email is mailed — tested against a real SMTP
 * server this test starts (`smtp-server`), with authentication, as SMTP_URL's user and password say.
 * The mail that arrives carries the link, and the link then works. A server that refuses or is gone:
 * the invitation stays, answered `mailed: false`.
 */
type Received = { from: string; to: string[]; raw: string; user: string | undefined };
const received: Received[] = [];
let smtp: SMTPServer;
let port: number;
let api: TestApi;
let refusingApi: TestApi;
let goneApi: TestApi;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: false,
    // Plain auth over a connection without TLS, as on a local relay (STARTTLS is not offered).
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    onAuth(auth, _session, callback) {
      if (auth.username === "mailer" && auth.password === "s3cret") return callback(null, { user: auth.username });
      return callback(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith("@refused.test")) return callback(new Error("Mailbox unavailable"));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  port = (smtp.server.address() as AddressInfo).port;
  api = await createTestApi({ publicUrl: "https://short.example", smtpUrl: `smtp://mailer:s3cret@127.0.0.1:${port}`, mailFrom: "Shortener <no-reply@short.example>" });
  refusingApi = await createTestApi({ publicUrl: "https://short.example", smtpUrl: `smtp://mailer:wrong@127.0.0.1:${port}` });
  // A port nothing listens on (this server's, closed below in its own test).
  goneApi = await createTestApi({ publicUrl: "https://short.example", smtpUrl: "smtp://mailer:s3cret@127.0.0.1:9" });
});
afterAll(async () => {
  await api?.close();
  await refusingApi?.close();
  await goneApi?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

/** The text of a mail, soft line breaks of quoted-printable undone (nodemailer folds long lines). */
function bodyOf(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
}

describe("invitation mail", () => {
  it("an invitation with an email is mailed through SMTP_URL; the link in the mail then works for a new person", async () => {
    const team = await createTeam(api, "Design Team");
    const before = received.length;
    const res = await api.call(team.admin.key, "POST", `/api/v1/workspaces/${team.id}/invitations`, { role: "editor", email: "Friend@Example.test" });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email: "friend@example.test", role: "editor", mailed: true });
    expect(received.length).toBe(before + 1);
    const mail = received[received.length - 1];
    if (!mail) throw new Error("no mail");
    expect(mail).toMatchObject({ from: "no-reply@short.example", to: ["friend@example.test"], user: "mailer" });
    const text = bodyOf(mail.raw);
    expect(text).toMatch(/^Subject: .*invites you to Design Team/m);
    expect(text).toContain('invites you to the workspace "Design Team" as editor.');
    const link = /https:\/\/short\.example\/app\/invite\/([A-Za-z0-9_-]{43})/.exec(text);
    expect(link?.[0]).toBe(res.body.data.url);
    const token = link?.[1] ?? "";
    const joined = await injectJson(api, "POST", "/app/invitations/accept", { json: { token, name: "Friend", email: "friend@example.test", password: "a long enough password" } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(joined.body.data.workspace).toMatchObject({ id: team.id, name: "Design Team", role: "editor" });
    const members = await injectJson(api, "GET", `/trpc/workspaces.members.list?input=${encodeURIComponent(JSON.stringify({ workspace_id: team.id }))}`, { cookie: cookieOf(joined) });
    expect(members.body.result.data.data.map((m: { email: string }) => m.email)).toContain("friend@example.test");
  });

  it("no email, no mail: mailed false, nothing sent", async () => {
    const team = await createTeam(api);
    const before = received.length;
    const res = await api.call(team.owner.key, "POST", `/api/v1/workspaces/${team.id}/invitations`, { role: "viewer" });
    expect(res.body.data).toMatchObject({ email: null, mailed: false });
    expect(received.length).toBe(before);
  });

  it.each([
    ["the server refuses the recipient", () => api, "someone@refused.test"],
    ["the server refuses the login", () => refusingApi, "someone@example.test"],
    ["no server answers", () => goneApi, "someone@example.test"],
  ])("a failed mail keeps the invitation (%s): 201 with mailed false, and the link works", async (_label, appOf, email) => {
    const app = appOf();
    const team = await createTeam(app);
    const res = await app.call(team.owner.key, "POST", `/api/v1/workspaces/${team.id}/invitations`, { role: "viewer", email });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mailed: false, status: "pending" });
    const list = await app.call(team.owner.key, "GET", `/api/v1/workspaces/${team.id}/invitations`);
    expect(list.body.data.map((i: { id: number }) => i.id)).toContain(res.body.data.id);
    const joiner = await app.user();
    expect((await app.call(joiner, "POST", "/api/v1/invitations/accept", { token: res.body.data.token })).status).toBe(200);
  });
});
