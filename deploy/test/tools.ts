import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/*
 * What the deployment tests need from the machine: commands run with a deadline and a failure that
 * says which step failed and why (the tail of its output), and Debian's packages installed when a tool
 * is missing (docs/adr/0036-container-image.md). No registry of images is reachable here, and
 * `podman run` is refused by the sandbox, so these tests build and inspect images but never run one.
 */

export type Ran = { stdout: string; stderr: string; code: number };

/** The last lines of a command's output, for a failure message. */
export function tail(text: string, lines = 30): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * Runs `command` and resolves with its output; rejects with "`what` failed: …" and the tail of its
 * output when it exits non-zero (unless `allowFailure`) or runs past `timeoutMs` (then it is killed).
 */
export function run(command: string, args: readonly string[], options: { what: string; timeoutMs: number; cwd?: string; allowFailure?: boolean; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`${options.what} failed: cannot run ${command}: ${error.message}`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const output = tail(`${stdout}\n${stderr}`);
      if (timedOut) reject(new Error(`${options.what} failed: no end after ${options.timeoutMs / 1000} s (killed). Last output:\n${output}`));
      else if (code !== 0 && !options.allowFailure) reject(new Error(`${options.what} failed (${signal ?? `exit ${code}`}):\n${output}`));
      else resolve({ stdout, stderr, code: code ?? -1 });
    });
  });
}

/** Whether `name` is an executable in PATH (or the sbin folders root has). */
export function hasCommand(name: string): boolean {
  const folders = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"];
  return folders.some((folder) => {
    try {
      accessSync(join(folder, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Installs the Debian packages of the commands that are missing (`command` → `package`), as root. */
export async function ensureDebianPackages(commands: Readonly<Record<string, string>>): Promise<void> {
  const missing = [...new Set(Object.entries(commands).flatMap(([command, pkg]) => (hasCommand(command) ? [] : [pkg])))];
  if (!missing.length) return;
  if (process.getuid?.() !== 0) throw new Error(`missing ${missing.join(", ")}: install Debian's package(s) (apt-get install ${missing.join(" ")}) or run the tests as root`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () =>
    run("apt-get", ["-o", "DPkg::Lock::Timeout=600", "install", "-y", "-q", ...missing], { what: `apt-get install ${missing.join(" ")}`, timeoutMs: 600_000, env, allowFailure: true });
  let result = await install();
  if (result.code !== 0) {
    await run("apt-get", ["-o", "DPkg::Lock::Timeout=600", "update", "-q"], { what: "apt-get update", timeoutMs: 300_000, env });
    result = await install();
  }
  if (result.code !== 0) throw new Error(`apt-get install ${missing.join(" ")} failed (exit ${result.code}):\n${tail(`${result.stdout}\n${result.stderr}`)}`);
}
