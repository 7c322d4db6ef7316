// Reads the shipped systemd units (deploy/systemd/) the way systemd does, for the tests that verify
// them and run their command line without systemd: so a test takes the unit's ExecStart, Environment=
// and EnvironmentFile= from the file itself and never keeps a copy of them.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

export type Unit = { readonly sections: ReadonlyMap<string, ReadonlyArray<readonly [string, string]>> };

/** A unit file's sections and their `Key=value` lines in order (comments dropped, `\` continuations joined). */
export function parseUnit(text: string): Unit {
  const sections = new Map<string, Array<readonly [string, string]>>();
  let current: Array<readonly [string, string]> | undefined;
  const lines = text.replace(/\\\n/g, " ").split("\n");
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section?.[1]) {
      current = sections.get(section[1]) ?? [];
      sections.set(section[1], current);
      continue;
    }
    const eq = line.indexOf("=");
    if (!current || eq < 1) throw new Error(`not a unit line: ${raw}`);
    current.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return { sections };
}

/** Every value of `key` in `section`, with the instance name in place of `%i` and `%I` (a template unit's instance). */
export function unitValues(unit: Unit, section: string, key: string, instance = ""): string[] {
  return (unit.sections.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v.replace(/%[iI]/g, instance).replace(/%%/g, "%"));
}

/** The one value of `key`; throws when it is missing. */
export function unitValue(unit: Unit, section: string, key: string, instance = ""): string {
  const values = unitValues(unit, section, key, instance);
  const last = values.at(-1);
  if (last === undefined) throw new Error(`[${section}] has no ${key}=`);
  return last;
}

/** Words of a systemd command line or Environment= value: split on blanks, double and single quotes kept together. */
export function splitWords(value: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of value.matchAll(re)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}

/** The assignments of one `Environment=` value (`A=1 "B=two words"`). */
export function parseEnvironmentValue(value: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const word of splitWords(value)) {
    const eq = word.indexOf("=");
    if (eq < 1) throw new Error(`not an assignment in Environment=: ${word}`);
    env[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return env;
}

/** An EnvironmentFile=: `KEY=value` lines, `#`/`;` comments, values optionally quoted; a later line wins. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq < 1) throw new Error(`not a KEY=value line: ${raw}`);
    let value = line.slice(eq + 1).trim();
    if (/^"(.*)"$|^'(.*)'$/.test(value)) value = value.slice(1, -1);
    env[line.slice(0, eq).trim()] = value;
  }
  return env;
}

/**
 * The environment systemd gives the service: its PATH, then Environment= lines, then the
 * EnvironmentFile= files in order (they override Environment=, systemd.exec(5)); a file
 * named with a leading `-` may be missing. `readFile` maps a unit path to where the test put it.
 */
export function serviceEnvironment(unit: Unit, readFile: (path: string) => string | undefined, instance = ""): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };
  for (const value of unitValues(unit, "Service", "Environment", instance)) Object.assign(env, parseEnvironmentValue(value));
  for (const entry of unitValues(unit, "Service", "EnvironmentFile", instance)) {
    const optional = entry.startsWith("-");
    const path = optional ? entry.slice(1) : entry;
    const text = readFile(path);
    if (text === undefined) {
      if (optional) continue;
      throw new Error(`EnvironmentFile=${path} is missing (systemd would refuse to start the unit)`);
    }
    Object.assign(env, parseEnvironmentFile(text));
  }
  return env;
}

/** A unit file from the repository. */
export function readUnit(path: string): Unit {
  return parseUnit(readFileSync(path, "utf8"));
}

/**
 * `systemd-analyze` on this machine: Debian's `systemd` package installs it. When it is missing and
 * apt-get is there (CI runs as root), it is installed once; otherwise the test fails saying what to install.
 */
export function ensureSystemdAnalyze(): string {
  const has = () => spawnSync("sh", ["-c", "command -v systemd-analyze"], { encoding: "utf8" }).stdout.trim();
  const found = has();
  if (found) return found;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"]).status === 0;
  if (!hasApt) throw new Error("systemd-analyze is missing: install systemd (Debian and Ubuntu: apt-get install -y systemd)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "systemd"]]) {
    const result = spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=600", ...args], { env, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed (systemd-analyze is missing; run it as root): ${result.stderr.slice(-500)}`);
  }
  const installed = has();
  if (!installed) throw new Error("apt-get installed systemd, but systemd-analyze is still not on PATH");
  return installed;
}
