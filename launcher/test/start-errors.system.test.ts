import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@shortener/db/testing";

/**
 * CONTRACT §13, §16: a start that cannot go on because of a setting prints one line naming it and
 * exits non-zero, without a stack. The real entry point, in a child process.
 */
const dataDir = mkdtempSync(join(tmpdir(), "shortener-start-errors-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const port = String(await freePort());
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "launcher/src/main.ts"], {
      cwd: join(import.meta.dirname, "../.."),
      env: { ...process.env, DATA_DIR: dataDir, PORT: port, LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("start errors: one line naming the setting", () => {
  it.each([
    [
      "an unreachable DATABASE_URL",
      { DATABASE_URL: "postgres://shortener:s3cret-pw@127.0.0.1:1/shortener" },
      /^DATABASE_URL cannot be reached \(postgres:\/\/shortener@127\.0\.0\.1:1\/shortener\): .*ECONNREFUSED.*\.$/,
    ],
    // ECONNREFUSED on a machine without PostgreSQL (the unit project runs without one).
    [
      "a DATABASE_URL whose database does not exist",
      { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/shortener_no_such_database_x" },
      /^DATABASE_URL cannot be reached \(.*\/shortener_no_such_database_x\): (database "shortener_no_such_database_x" does not exist|.*ECONNREFUSED.*)\.$/,
    ],
    ["an unreachable REDIS_URL", { REDIS_URL: "redis://:r3dis-pw@127.0.0.1:1" }, /^REDIS_URL cannot be reached \(redis:\/\/127\.0\.0\.1:1\): .*ECONNREFUSED.*\.$/],
    ["a malformed PORT", { PORT: "abc" }, /^Invalid setting PORT: must be an integer from 1 to 65535 \(got "abc"\)\.$/],
    ["a malformed ACCESS_LOG", { ACCESS_LOG: "verbose" }, /^Invalid setting ACCESS_LOG: must be one of api, all, off \(got "verbose"\)\.$/],
    ["a malformed METRICS_PORT", { METRICS_PORT: "70000" }, /^Invalid setting METRICS_PORT: must be an integer from 1 to 65535 \(got "70000"\)\.$/],
    [
      "single sign-on set in part (docs/sso.md)",
      { OIDC_ISSUER: "https://sso.example.com/realms/acme", OIDC_CLIENT_ID: "shortener" },
      /^Invalid setting OIDC_CLIENT_SECRET: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET together, and OIDC_ISSUER and OIDC_CLIENT_ID are set without it\.$/,
    ],
  ])(
    "%s",
    async (_name, env, line) => {
      const result = await start(env);
      expect(result.code).not.toBe(0);
      expect(result.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(line)]);
      expect(result.stderr).not.toContain("s3cret-pw");
      expect(result.stderr).not.toContain("r3dis-pw");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).not.toMatch(/"level":60/);
    },
    90_000,
  );
});
