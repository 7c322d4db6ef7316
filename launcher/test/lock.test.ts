import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lockDataDir } from "../src/lock.ts";

const dir = () => mkdtempSync(join(tmpdir(), "shortener-lock-"));

describe("data folder lock", () => {
  it("refuses a second holder while the first is alive, and frees on release", () => {
    const d = dir();
    const release = lockDataDir(d);
    expect(readFileSync(join(d, "shortener.pid"), "utf8")).toBe(String(process.pid));
    expect(() => lockDataDir(d)).toThrow(/is in use by process/);
    release();
    expect(existsSync(join(d, "shortener.pid"))).toBe(false);
    lockDataDir(d)();
  });

  it("refuses when another live process holds it", () => {
    const d = dir();
    writeFileSync(join(d, "shortener.pid"), String(process.ppid));
    expect(() => lockDataDir(d)).toThrow(`is in use by process ${process.ppid}`);
  });

  it("takes over the lock of a process that is gone", () => {
    const d = dir();
    writeFileSync(join(d, "shortener.pid"), "2147483646");
    const release = lockDataDir(d);
    expect(readFileSync(join(d, "shortener.pid"), "utf8")).toBe(String(process.pid));
    release();
  });
});
