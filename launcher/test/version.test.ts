import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";
import { startErrorLine } from "../src/start-errors.ts";
import { ROOT_PACKAGE_JSON, serviceVersion, versionOf } from "../src/version.ts";
import { welcome } from "../src/welcome.ts";

/** CONTRACT §22: one version, the root package.json's, shown by the start line and /metrics (and /healthz: operations.db.test.ts). */
describe("the release version", () => {
  it("is the root package.json's version, and a semantic version", () => {
    const written = (JSON.parse(readFileSync(ROOT_PACKAGE_JSON, "utf8")) as { version: string }).version;
    expect(serviceVersion()).toBe(written);
    expect(versionOf(JSON.stringify({ version: written }))).toBe(written);
  });

  it.each([
    ["a release", '{"version":"1.2.3"}', "1.2.3"],
    ["a pre-release with build metadata", '{"version":"2.0.0-rc.1+build.5"}', "2.0.0-rc.1+build.5"],
  ])("reads %s", (_name, text, version) => {
    expect(versionOf(text)).toBe(version);
  });

  it.each([
    ["no version", "{}", /must be a semantic version.*\(got null\)/],
    ["a number", '{"version":1}', /\(got 1\)/],
    ["two parts", '{"version":"1.2"}', /\(got "1.2"\)/],
    ["a leading v", '{"version":"v1.2.3"}', /\(got "v1.2.3"\)/],
    ["a leading zero", '{"version":"01.2.3"}', /\(got "01.2.3"\)/],
    ["a range", '{"version":"^1.2.3"}', /\(got "\^1.2.3"\)/],
    ["broken JSON", '{"version":', /not valid JSON/],
  ])("refuses %s with one line that stops the start", (_name, text, message) => {
    expect(() => versionOf(text)).toThrow(message);
    let thrown: unknown;
    try {
      versionOf(text);
    } catch (error) {
      thrown = error;
    }
    expect(startErrorLine(thrown, { PORT: 3000, HOST: "127.0.0.1" })).toMatch(message);
  });

  it("opens the start line", () => {
    const boot = { created: false } as const;
    const lines = welcome("http://localhost:3000", boot, "pglite").split("\n");
    expect(lines[1]).toBe(`Shortener ${serviceVersion()} is running at http://localhost:3000 (embedded database).`);
    expect(welcome("http://localhost:3000", boot, "postgres", { version: "9.8.7" }).split("\n")[1]).toBe("Shortener 9.8.7 is running at http://localhost:3000 (PostgreSQL).");
  });

  it("is a build_info gauge in /metrics", async () => {
    const text = await createMetrics().registry.metrics();
    expect(text).toContain(`# TYPE shortener_build_info gauge\nshortener_build_info{version="${serviceVersion()}"} 1\n`);
    expect(await createMetrics("3.4.5").registry.metrics()).toContain('shortener_build_info{version="3.4.5"} 1\n');
  });
});
