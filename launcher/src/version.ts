import { readFileSync } from "node:fs";

/**
 * The service's release version: the `version` of the repository's root package.json, the one place it
 * is written (docs/adr/0038-versions-and-upgrades.md). Read once, when the launcher loads: /healthz,
 * the start line and /metrics' `shortener_build_info` all show this value. `launcher/src` and
 * `launcher/dist` both sit two folders below the root.
 */
export const ROOT_PACKAGE_JSON = new URL("../../package.json", import.meta.url);

/** Semantic Versioning 2.0.0's grammar: MAJOR.MINOR.PATCH, an optional pre-release and build metadata. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** The `version` of a package.json's text; throws one line when it is missing or not semver. */
export function versionOf(packageJson: string): string {
  let version: unknown;
  try {
    version = (JSON.parse(packageJson) as { version?: unknown }).version;
  } catch {
    throw new Error("The root package.json is not valid JSON.");
  }
  if (typeof version !== "string" || !SEMVER.test(version)) {
    throw new Error(`The root package.json's version must be a semantic version such as 1.2.3 (got ${JSON.stringify(version ?? null)}).`);
  }
  return version;
}

export const SERVICE_VERSION: string = versionOf(readFileSync(ROOT_PACKAGE_JSON, "utf8"));
