#!/usr/bin/env node
// The browser tests (the stats page, /api/docs) drive Debian's Chromium at /usr/bin/chromium through
// playwright-core, which never downloads a browser. `pnpm test` runs this first: when Chromium is
// missing it installs the distribution's package with apt-get (as .ci/run does), so the README's test
// command needs no manual step on a Debian or Ubuntu machine where it runs as root.
// CHROMIUM_PATH overrides the path (the tests of this script use it).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (existsSync(path)) process.exit(0);

const run = (command, args) => {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  return result.status === 0;
};

const hasAptGet = spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0;
if (!hasAptGet) {
  console.error(`The browser tests need Chromium at ${path}: install it (Debian and Ubuntu: apt-get install -y chromium).`);
  process.exit(1);
}
console.log(`Chromium is missing at ${path}: installing the distribution's package (about 100 MB, a minute or two).`);
if (!run("apt-get", ["update"]) || !run("apt-get", ["install", "-y", "--no-install-recommends", "chromium"]) || !existsSync(path)) {
  console.error(`Installing Chromium failed; the browser tests need it at ${path} (apt-get install -y chromium, as root).`);
  process.exit(1);
}
