import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { reasonOf, StartError } from "./start-errors.ts";

/**
 * The service's release version: the `version` of the repository's root package.json, the one place it
 * is written (docs/adr/0038-versions-and-upgrades.md). Read once, at the start: /healthz, the start line
 * and /metrics' `shortener_build_info` all show this value. `launcher/src` and `launcher/dist` both sit
 * in `launcher/`, beside that file's folder.
 */
export const ROOT_PACKAGE_JSON = new URL("../../package.json", import.meta.url);

/** Semantic Versioning 2.0.0's grammar: MAJOR.MINOR.PATCH, an optional pre-release and build metadata. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** The `version` of a package.json's text; a missing or non-semver one stops the start with one line. */
export function versionOf(packageJson: string): string {
  let version: unknown;
  try {
    version = (JSON.parse(packageJson) as { version?: unknown }).version;
  } catch {
    throw new StartError("The root package.json is not valid JSON.");
  }
  if (typeof version !== "string" || !SEMVER.test(version)) {
    throw new StartError(`The root package.json's version must be a semantic version such as 1.2.3 (got ${JSON.stringify(version ?? null)}).`);
  }
  return version;
}

let cached: string | undefined;

/** The release this process runs, read from the root package.json on the first call. */
export function serviceVersion(): string {
  if (cached === undefined) {
    let text: string;
    try {
      text = readFileSync(ROOT_PACKAGE_JSON, "utf8");
    } catch (error) {
      throw new StartError(`The root package.json (${fileURLToPath(ROOT_PACKAGE_JSON)}) cannot be read: ${reasonOf(error)}. It holds the release's version: keep it with the launcher.`);
    }
    cached = versionOf(text);
  }
  return cached;
}
