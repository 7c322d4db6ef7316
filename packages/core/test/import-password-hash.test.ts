import { describe, expect, it } from "vitest";
import { checkImportRow, hashPassword, toLinkInput, verifyPassword, type ImportScope } from "../src/index.ts";

/** CONTRACT §17: an export carries stored hashes; the importer takes them back, and nothing else. */
const scope: ImportScope = {
  jobId: 1,
  workspaceId: 1,
  defaultDomainId: 7,
  domainNames: new Map([[7, "s.example"]]),
  domainIds: new Map([["s.example", 7]]),
  spaceIds: new Set(),
  pixelIds: new Set(),
  servedNames: new Set(["s.example"]),
};
const now = new Date();

describe("password_hash and privacy_password_hash columns", () => {
  it("a hash this service wrote is stored as it is, and the same password opens it", async () => {
    const hash = await hashPassword("open sesame");
    const privacyHash = await hashPassword("stats");
    const result = checkImportRow({ line: 2, fields: { url: "https://a.example/", password_hash: hash, privacy: "2", privacy_password_hash: privacyHash } }, scope, now);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.row).toMatchObject({ password: null, passwordHash: hash, privacyPassword: null, privacyPasswordHash: privacyHash, privacy: 2 });
    expect(await verifyPassword("open sesame", result.row.passwordHash as string)).toBe(true);
    // Not passed on to the link schema as fields of their own.
    expect(toLinkInput({ url: "https://a.example/", password_hash: hash })).toEqual({ url: "https://a.example/" });
  });

  it("privacy 2 is satisfied by a privacy password hash; without either it is still a row error", () => {
    expect(checkImportRow({ line: 2, fields: { url: "https://a.example/", privacy: "2" } }, scope, now)).toMatchObject({ ok: false, errors: [{ field: "privacy_password" }] });
  });

  it.each([
    ["not a hash", "password_hash"],
    ["scrypt$1048576$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "password_hash"],
    ["scrypt$16384$8$1$AAAA$AAAA", "password_hash"],
    ["bcrypt$2b$10$abcdefghijklmnopqrstuv", "password_hash"],
  ])("refuses %j", (value, field) => {
    const result = checkImportRow({ line: 3, fields: { url: "https://a.example/", password_hash: value } }, scope, now);
    expect(result).toMatchObject({ ok: false, errors: [{ line: 3, field, message: "The password hash is not a hash this service wrote." }] });
  });

  it("a password and its hash together are a row error", async () => {
    const result = checkImportRow({ line: 4, fields: { url: "https://a.example/", password: "x", password_hash: await hashPassword("x") } }, scope, now);
    expect(result).toMatchObject({ ok: false, errors: [{ line: 4, field: "password_hash", message: "Send either the password or its hash, not both." }] });
  });
});
