import type { BootstrapResult } from "@shortener/core";
import { serviceVersion } from "./version.ts";

/** What a start prints: the release and where it runs, the admin key (once) and a request to paste. */
export function welcome(url: string, boot: BootstrapResult, driver: string, options: { services?: readonly string[]; metricsPort?: number | undefined; host?: string; version?: string } = {}): string {
  const services = options.services ?? ["api", "redirect", "worker"];
  const roles = services.length === 3 ? "" : `, running only ${services.join(", ")}`;
  const lines = [``, `Shortener ${options.version ?? serviceVersion()} is running at ${url} (${driver === "pglite" ? "embedded database" : "PostgreSQL"}${roles}).`];
  if (boot.created && services.includes("api")) {
    const key = boot.apiKeyWasGenerated ? boot.apiKey : "$ADMIN_API_KEY";
    lines.push(
      ``,
      `First start: created the admin (${boot.adminEmail}) and the domain ${boot.domainName}.`,
      boot.apiKeyWasGenerated ? `Admin API key (shown only this once; store it now):` : `Admin API key: the one given in ADMIN_API_KEY.`,
      ...(boot.apiKeyWasGenerated ? [`  ${boot.apiKey}`] : []),
      ``,
      `Shorten a URL:`,
      `  curl -H "Authorization: Bearer ${key}" -d url=https://example.com -d domain_id=${boot.domainId ?? 1} ${url}/api/v1/links`,
      ``,
      `Then open the short_url it answers in a browser, or see your account:`,
      `  curl -H "Authorization: Bearer ${key}" ${url}/api/v1/account`,
    );
  }
  if (services.includes("api")) lines.push(``, `API reference: ${url}/api/docs`, `Dashboard: ${url}/app/ (first sign-in with the API key, then choose a password)`);
  if (options.metricsPort) lines.push(`Metrics: http://${options.host ?? "127.0.0.1"}:${options.metricsPort}/metrics`);
  lines.push(``, `Health: ${url}/healthz   Readiness: ${url}/readyz   Stop: Ctrl+C`, ``);
  return lines.join("\n");
}
