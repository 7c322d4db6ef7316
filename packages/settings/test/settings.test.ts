import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSettings, Settings, SettingsError } from "../src/index.ts";

/** The one table of settings (launcher and importer CLI): documented everywhere a user looks. */
const ROOT = join(import.meta.dirname, "../../..");
const NAMES = Object.keys(Settings.shape);

describe("the settings table", () => {
  it.each([
    [".env.example", (name: string) => new RegExp(`^#?${name}=`, "m")],
    ["README.md", (name: string) => new RegExp(`\`${name}\``)],
    ["docs/configuration.md", (name: string) => new RegExp(`\`${name}\``)],
  ])("every setting is in %s", (file, pattern) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    expect(NAMES.filter((name) => !pattern(name).test(text))).toEqual([]);
  });

  it("every setting of .env.example parses as it is written there", () => {
    const values: Record<string, string> = {};
    for (const line of readFileSync(join(ROOT, ".env.example"), "utf8").split("\n")) {
      const match = /^#?([A-Z_]+)=(.*)$/.exec(line);
      if (match?.[1] && match[2] !== undefined) values[match[1]] = match[2];
    }
    expect(Object.keys(values).sort()).toEqual([...NAMES].sort());
    expect(() => parseSettings(Settings, values)).not.toThrow();
  });

  it("a bad value is a SettingsError of one line naming the variable", () => {
    expect(() => parseSettings(Settings, { ACCESS_LOG: "loud" })).toThrow(SettingsError);
    expect(() => parseSettings(Settings, { ACCESS_LOG: "loud" })).toThrow(/^Invalid setting ACCESS_LOG: must be one of api, all, off \(got "loud"\)\.$/);
    expect(parseSettings(Settings, { METRICS_PORT: "9464", ACCESS_LOG: "" })).toMatchObject({ METRICS_PORT: 9464, ACCESS_LOG: "api" });
  });
});

describe("SERVICES", () => {
  it.each([
    ["api,redirect,worker", ["api", "redirect", "worker"]],
    ["worker", ["worker"]],
    ["importer", ["worker"]],
    ["api,importer,worker", ["api", "worker"]],
  ])("%s runs %j: importer is the worker's former name", (value, roles) => {
    expect(parseSettings(Settings, { SERVICES: value }).SERVICES).toEqual(roles);
  });

  it.each([["mailer"], ["api,mailer"], ["Worker"]])("%j is refused", (value) => {
    expect(() => parseSettings(Settings, { SERVICES: value })).toThrow(/^Invalid setting SERVICES: must be a comma list of api, redirect, worker/);
  });
});
