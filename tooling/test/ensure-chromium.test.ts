import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * tooling/ensure-chromium.mjs, which `pnpm test` runs first. The machine's own apt-get is not touched:
 * a stand-in on PATH records its calls and "installs" the browser where CHROMIUM_PATH points.
 */
const SCRIPT = join(import.meta.dirname, "../ensure-chromium.mjs");
const dir = mkdtempSync(join(tmpdir(), "shortener-ensure-chromium-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeAptGet(options: { fails?: boolean } = {}) {
  const bin = mkdtempSync(join(dir, "bin-"));
  const log = join(bin, "calls.log");
  const browser = join(bin, "chromium");
  writeFileSync(join(bin, "apt-get"), `#!/bin/sh\necho "$@" >> "${log}"\n${options.fails ? "exit 100\n" : `if [ "$1" = install ]; then touch "${browser}"; fi\n`}`);
  chmodSync(join(bin, "apt-get"), 0o755);
  return { bin, log, browser };
}

function ensure(env: Record<string, string>) {
  return spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, encoding: "utf8" });
}

describe("ensure-chromium (the test command's first step)", () => {
  it("does nothing when Chromium is there", () => {
    const { bin, log } = fakeAptGet();
    const present = join(bin, "present");
    writeFileSync(present, "");
    const result = ensure({ CHROMIUM_PATH: present, PATH: `${bin}:${process.env.PATH}` });
    expect(result.status).toBe(0);
    expect(existsSync(log)).toBe(false);
  });

  it("installs the distribution's package when it is missing", () => {
    const { bin, log, browser } = fakeAptGet();
    const result = ensure({ CHROMIUM_PATH: browser, PATH: `${bin}:${process.env.PATH}` });
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["update", "install -y --no-install-recommends chromium"]);
    expect(existsSync(browser)).toBe(true);
  });

  it("stops the test command with a clear line when the install fails", () => {
    const { bin, browser } = fakeAptGet({ fails: true });
    const result = ensure({ CHROMIUM_PATH: browser, PATH: `${bin}:${process.env.PATH}` });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Installing Chromium failed; the browser tests need it at ${browser}`);
  });
});
