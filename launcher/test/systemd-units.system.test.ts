// CONTRACT §22: the shipped systemd units pass `systemd-analyze verify`. Verify reports most mistakes
// (an unknown key, a value it cannot parse) as warnings and still exits 0, so a unit passes only when
// verify exits 0 and prints nothing. It runs with --root on a throwaway tree: the units installed where
// the guide puts them, the host's own unit directory (for the targets they name), and an executable at
// the ExecStart path, so the check does not depend on where this machine keeps node.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSystemdAnalyze, parseUnit, splitWords, unitValue } from "./systemd-unit.ts";

const DEPLOY = join(import.meta.dirname, "../../deploy/systemd");
const UNITS = readdirSync(DEPLOY).filter((name) => name.endsWith(".service"));
/** The instances the guide names for the template unit. */
const INSTANCES = ["api", "redirect", "worker"];

let analyze = "";
let root = "";

beforeAll(() => {
  analyze = ensureSystemdAnalyze();
  root = mkdtempSync(join(tmpdir(), "shortener-units-"));
  const hostUnits = ["/usr/lib/systemd/system", "/lib/systemd/system"].find((dir) => existsSync(join(dir, "sysinit.target")));
  if (!hostUnits) throw new Error("no systemd unit directory with sysinit.target on this machine (is the systemd package installed?)");
  mkdirSync(join(root, "usr/lib/systemd"), { recursive: true });
  // dpkg may be writing units meanwhile (another test's apt-get): its temporary files are skipped, and a
  // file gone between the listing and its copy makes the copy start again.
  const isDpkgTemporary = (path: string) => /\.dpkg-(new|tmp|old|dist)$/.test(path);
  for (let attempt = 1; ; attempt++) {
    try {
      cpSync(hostUnits, join(root, "usr/lib/systemd/system"), { recursive: true, verbatimSymlinks: true, force: true, filter: (source) => !isDpkgTemporary(source) });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 5) throw error;
    }
  }
  mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * verify's exit code and everything it printed, for `text` installed as `name` in the throwaway root (a
 * template checked through one of its instances). With `standIn`, an executable is put wherever the
 * unit's ExecStart points, inside the root.
 */
function verify(name: string, text: string, { instance, standIn = true }: { instance?: string | undefined; standIn?: boolean } = {}): { status: number | null; output: string } {
  const path = join(root, "etc/systemd/system", name);
  writeFileSync(path, text);
  if (standIn) {
    const [command] = splitWords(unitValue(parseUnit(text), "Service", "ExecStart").replace(/^[-@:+!]+/, ""));
    if (!command?.startsWith("/")) throw new Error(`ExecStart of ${name} is not an absolute path: ${command}`);
    mkdirSync(join(root, dirname(command)), { recursive: true });
    writeFileSync(join(root, command), "#!/bin/sh\n", { mode: 0o755 });
  }
  const target = instance === undefined ? name : name.replace("@.", `@${instance}.`);
  const result = spawnSync(analyze, ["verify", `--root=${root}`, `/etc/systemd/system/${target}`], { encoding: "utf8" });
  rmSync(path);
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/**
 * Debian's caddy.service, which the drop-in amends: the host's when the caddy package is installed,
 * else taken out of the package file (apt-get download: nothing installed, nothing started).
 */
function ensureCaddyUnit(): void {
  const target = join(root, "usr/lib/systemd/system/caddy.service");
  if (existsSync(target)) return;
  const work = mkdtempSync(join(tmpdir(), "shortener-caddy-deb-"));
  try {
    let download = spawnSync("apt-get", ["download", "caddy"], { cwd: work, encoding: "utf8" });
    if (download.status !== 0) {
      spawnSync("apt-get", ["update"], { encoding: "utf8" });
      download = spawnSync("apt-get", ["download", "caddy"], { cwd: work, encoding: "utf8" });
    }
    const deb = readdirSync(work).find((name) => name.endsWith(".deb"));
    if (!deb) throw new Error(`apt-get download caddy failed (Debian's caddy package holds the caddy.service the drop-in amends): ${download.stderr}`);
    const unit = spawnSync("sh", ["-c", `dpkg-deb --fsys-tarfile '${deb}' | tar -xO ./lib/systemd/system/caddy.service`], { cwd: work, encoding: "utf8" });
    if (unit.status !== 0 || !unit.stdout.includes("[Service]")) throw new Error(`no caddy.service in ${deb}: ${unit.stderr}`);
    writeFileSync(target, unit.stdout);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** verify of Debian's caddy.service with `dropIn` as /etc/systemd/system/caddy.service.d/shortener.conf. */
function verifyCaddyDropIn(dropIn: string): { status: number | null; output: string } {
  ensureCaddyUnit();
  const dir = join(root, "etc/systemd/system/caddy.service.d");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "shortener.conf"), dropIn);
  mkdirSync(join(root, "usr/bin"), { recursive: true });
  writeFileSync(join(root, "usr/bin/caddy"), "#!/bin/sh\n", { mode: 0o755 });
  const result = spawnSync(analyze, ["verify", `--root=${root}`, "/usr/lib/systemd/system/caddy.service"], { encoding: "utf8" });
  rmSync(dir, { recursive: true });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

const cases = UNITS.flatMap((name): Array<{ name: string; instance: string | undefined; label: string }> =>
  name.includes("@.") ? INSTANCES.map((instance) => ({ name, instance, label: name.replace("@.", `@${instance}.`) })) : [{ name, instance: undefined, label: name }],
);

describe("the shipped systemd units", () => {
  it("are the all-in-one unit and the per-role template", () => {
    expect(UNITS.sort()).toEqual(["shortener.service", "shortener@.service"]);
  });

  it.each(cases)("$label passes systemd-analyze verify with no warning", ({ name, instance }) => {
    const result = verify(name, readFileSync(join(DEPLOY, name), "utf8"), { instance });
    console.log(`systemd-analyze verify ${name.replace("@.", `@${instance ?? ""}.`)}: exit ${result.status}${result.output ? `\n${result.output}` : ", no output"}`);
    expect(result).toEqual({ status: 0, output: "" });
  });
});

describe("the Caddy drop-in", () => {
  it("amends Debian's caddy.service to run the shipped Caddyfile, and passes verify", () => {
    const dropIn = readFileSync(join(DEPLOY, "caddy-shortener.conf"), "utf8");
    expect(dropIn).toMatch(/^ExecStart=\/usr\/bin\/caddy run --environ --config \/opt\/shortener\/deploy\/Caddyfile --adapter caddyfile$/m);
    const result = verifyCaddyDropIn(dropIn);
    console.log(`systemd-analyze verify caddy.service + caddy.service.d/shortener.conf: exit ${result.status}${result.output ? `\n${result.output}` : ", no output"}`);
    expect(result).toEqual({ status: 0, output: "" });
  });

  it("fails the check with a planted mistake", () => {
    const result = verifyCaddyDropIn(readFileSync(join(DEPLOY, "caddy-shortener.conf"), "utf8").replace(/^After=/m, "Aftr="));
    expect(result.output).toMatch(/Unknown key 'Aftr'/);
  });
});

describe("a planted mistake fails the check", () => {
  const original = readFileSync(join(DEPLOY, "shortener.service"), "utf8");
  it.each([
    ["a misspelt key", "NoNewPrivileges=true", "NoNewPrivilege=true", /Unknown key 'NoNewPrivilege'/],
    ["a value systemd cannot parse", "Restart=on-failure", "Restart=sometimes", /Failed to parse service restart specifier/],
    ["a hardening value it cannot parse", "ProtectSystem=strict", "ProtectSystem=very", /Failed to parse protect system value/],
    ["a missing executable", "ExecStart=/usr/bin/node ", "ExecStart=/usr/bin/node-missing/node ", /is not executable/],
    ["a misspelt section", "[Service]", "[Servic]", /Unknown section 'Servic'/],
  ])("%s", (_name, from, to, message) => {
    // The first line that starts with `from` (not a comment that mentions it).
    const line = new RegExp(`^${from.replace(/[[\]]/g, "\\$&")}`, "m");
    expect(original).toMatch(line);
    // No stand-in executable for a planted ExecStart, and none can be found for a unit without [Service].
    const result = verify("planted.service", original.replace(line, to), { standIn: false });
    console.log(`planted ${JSON.stringify(to.trim())}: exit ${result.status}: ${result.output.split("\n")[0]}`);
    expect(result.status !== 0 || result.output !== "").toBe(true);
    expect(result.output).toMatch(message);
  });
});
