import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { apiData, startTestServer } from "./helpers.ts";

/*
 * `/tls/ask` as the launcher routes it (CONTRACT §22, docs/tls.md): the API role answers it, in a process
 * that runs the API only and in the all-in-one process; the path takes no alias from the visitor side.
 */

const ADMIN_KEY = `shk_${"T".repeat(40)}`;
const uniq = () => Math.random().toString(36).slice(2, 10);

async function askStatus(base: string, name: string): Promise<number> {
  return (await fetch(`${base}/tls/ask?domain=${encodeURIComponent(name)}`)).status;
}

/** A visit with the Host of the short URL: status and Location. */
function visit(port: number, host: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("GET /tls/ask through the launcher", () => {
  it("SERVICES=api answers it: the own host and verified domains 200, other names 404", async () => {
    const server = await startTestServer({ SERVICES: "api", ADMIN_API_KEY: ADMIN_KEY });
    try {
      const name = `api-only-${uniq()}.example`;
      await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/domains", { name });
      expect(await askStatus(server.base, "localhost")).toBe(200);
      expect(await askStatus(server.base, name)).toBe(200);
      expect(await askStatus(server.base, `unknown-${uniq()}.example`)).toBe(404);
      expect(await askStatus(server.base, `${name}:443`)).toBe(400);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("the all-in-one process answers it, and a link with the alias `tls` still redirects", async () => {
    const server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY });
    try {
      const name = `all-in-one-${uniq()}.example`;
      const domain = await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/domains", { name });
      expect(await askStatus(server.base, name)).toBe(200);
      expect(await askStatus(server.base, `unknown-${uniq()}.example`)).toBe(404);
      const link = await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/links", { url: "https://example.com/tls-docs", domain_id: String(domain.id), alias: "tls" });
      expect(link.alias).toBe("tls");
      expect(await visit(server.port, name, "/tls")).toEqual({ status: 302, location: "https://example.com/tls-docs" });
    } finally {
      await server.close();
    }
  }, 60_000);
});
