import type { FastifyInstance } from "fastify";
import pino from "pino";
import { z } from "zod";
import { API_KEY_SCOPES, ConflictError, CORE_ERROR_CODES, CoreError, ForbiddenError, LimitExceededError, NotFoundError, ValidationError, type CoreErrorCode } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import type { Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG, ERROR_TABLE, type ApiDeps } from "../src/index.ts";
import { router, scoped } from "../src/trpc/init.ts";
import { registerTrpc } from "../src/trpc/plugin.ts";

/**
 * STYLE §5: every core error code through both transports, by the one table of src/errors.ts. A test-only
 * REST route and a test-only procedure (on the real procedure builder, the real plugin and the real
 * app) throw one error of each code; a `Record` over the codes makes a new code fail to compile here.
 */
const SECRET = "password=hunter2 at db.internal:5432";
const SAMPLES: Record<CoreErrorCode, () => Error> = {
  NOT_FOUND: () => new NotFoundError("Link"),
  CONFLICT: () => new ConflictError("The link changed meanwhile."),
  VALIDATION: () => new ValidationError({ url: ["The url field is required."], "country.0.key": ["The country must be an ISO 3166-1 alpha-2 code."] }),
  FORBIDDEN: () => new ForbiddenError("This action is reserved for administrators."),
  LIMIT_EXCEEDED: () => new LimitExceededError("The file has more than 100000 rows."),
  INTERNAL: () => new CoreError("INTERNAL", `lost the database: ${SECRET}`),
};
const UNKNOWN = () => new TypeError(`cannot read properties of undefined (${SECRET})`);

const logs: string[] = [];
let database: Database;
let app: FastifyInstance;
beforeAll(async () => {
  database = await openTestDb();
  const deps: ApiDeps = {
    database,
    now: () => new Date(),
    config: DEFAULT_API_CONFIG,
    logger: pino({ level: "error" }, { write: (line: string) => void logs.push(line) }),
  };
  app = await createApi(deps);
  const thrower = (code: string) => (code === "UNKNOWN" ? UNKNOWN() : SAMPLES[code as CoreErrorCode]());
  app.get("/test-errors/:code", async (request) => {
    throw thrower((request.params as { code: string }).code);
  });
  const testRouter = router({
    throw: scoped("links:read", "viewer")
      .input(z.object({ code: z.string() }))
      .query(({ input }) => {
        throw thrower(input.code);
      }),
  });
  await registerTrpc(app, {
    deps,
    guard: async () => ({ userId: 1, role: "user", workspaceId: 1, workspaceRole: "owner", keyId: 1, scopes: API_KEY_SCOPES, expiresAt: null }),
    router: testRouter,
    prefix: "/test-trpc",
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function viaRest(code: string) {
  const res = await app.inject({ method: "GET", url: `/test-errors/${code}` });
  return { status: res.statusCode, body: res.json(), raw: res.body };
}

async function viaTrpc(code: string) {
  const res = await app.inject({ method: "GET", url: `/test-trpc/throw?input=${encodeURIComponent(JSON.stringify({ code }))}` });
  return { status: res.statusCode, error: res.json().error, raw: res.body };
}

describe("one error table for both transports (STYLE §5)", () => {
  it("covers every core code", () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual([...CORE_ERROR_CODES].sort());
    expect(Object.keys(SAMPLES).sort()).toEqual([...CORE_ERROR_CODES].sort());
  });

  it.each(CORE_ERROR_CODES)("%s: REST status and code slug, tRPC code, by the table", async (code) => {
    const entry = ERROR_TABLE[code];
    expect(SAMPLES[code]()).toBeInstanceOf(CoreError);

    const rest = await viaRest(code);
    expect(rest.status).toBe(entry.http);
    expect(rest.body).toMatchObject({ code: entry.slug, status: entry.http });

    const trpc = await viaTrpc(code);
    expect(trpc.error.data).toMatchObject({ code: entry.trpc, httpStatus: trpc.status, slug: entry.slug });
    expect(trpc.error.data.stack).toBeUndefined();

    if (code === "VALIDATION") {
      const fields = (SAMPLES.VALIDATION() as ValidationError).fields;
      expect(rest.body.message).toEqual(fields);
      expect(trpc.error.data.fieldErrors).toEqual(fields);
      expect(trpc.error.message).toBe("The url field is required.");
    } else {
      expect(trpc.error.data.fieldErrors).toBeNull();
    }
    if (code === "NOT_FOUND") {
      expect(rest.body.message).toBe("Resource not found.");
      expect(trpc.error.message).toBe("Resource not found.");
    }
  });

  it.each(["INTERNAL", "UNKNOWN"])("%s: a generic 500 on both, the cause only in the log", async (code) => {
    logs.length = 0;
    const rest = await viaRest(code);
    expect(rest.status).toBe(500);
    expect(rest.body).toEqual({ message: "Server Error.", code: "internal_error", status: 500 });
    const trpc = await viaTrpc(code);
    expect(trpc.status).toBe(500);
    expect(trpc.error.message).toBe("Server Error.");
    expect(trpc.error.data).toMatchObject({ code: "INTERNAL_SERVER_ERROR", slug: "internal_error" });
    for (const raw of [rest.raw, trpc.raw]) expect(raw).not.toContain("hunter2");
    const logged = logs.filter((line) => line.includes("hunter2"));
    expect(logged).toHaveLength(2);
  });
});
