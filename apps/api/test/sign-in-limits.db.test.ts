import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { setPassword } from "@shortener/core";
import { createTestUser } from "@shortener/core/testing";
import { ACCOUNT_TRY_LIMIT, createFailedTries, createPostgresStore, createRedisStore, type AccountTryLimit, type FailedTries } from "@shortener/web-guard";
import { describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG } from "../src/index.ts";
import { useDatabaseAndRedis } from "./helpers.ts";

/**
 * CONTRACT §15 (issue 26, item 10): dashboard sign-in and `current_password` guesses are limited per
 * account as well as per address. A guesser on many addresses (IPv4 and IPv6 /64s) gets the free
 * guesses and then one per growing wait; the owner waits minutes at most, not at all on a browser that
 * signed in before; a valid session or key is never refused. Two API processes share the counters,
 * in the database (with a clock the test moves) and in Redis (with waits scaled down to milliseconds).
 */
const suite = useDatabaseAndRedis();

type Setup = { processes: [FastifyInstance, FastifyInstance]; limit: AccountTryLimit; wait(ms: number): Promise<void> };

/** Two processes on one store of failed tries; `wait` lets the limiter's time pass. */
const stores: Array<[string, () => Promise<Setup>]> = [
  [
    "the database",
    async () => {
      let offset = 0;
      const now = () => Date.now() + offset;
      const make = () => createFailedTries({ store: createPostgresStore(suite.database, { now }), now });
      return { processes: [await processWith(make()), await processWith(make())], limit: ACCOUNT_TRY_LIMIT, wait: async (ms) => void (offset += ms) };
    },
  ],
  [
    "Redis",
    async () => {
      // Redis expires windows by its own clock: the waits are seconds here, the rule the same.
      const limit = { free: ACCOUNT_TRY_LIMIT.free, windowMs: 120_000, baseDelayMs: 2_000, maxDelayMs: 4_000 };
      const make = () => createFailedTries({ store: createRedisStore(suite.redis.redis, { prefix: suite.redis.prefix }), accountLimit: limit });
      return { processes: [await processWith(make()), await processWith(make())], limit, wait: (ms) => new Promise((ok) => setTimeout(ok, ms)) };
    },
  ],
];

async function processWith(failedTries: FailedTries): Promise<FastifyInstance> {
  suite.limiters.push(failedTries);
  const app = await createApi({ database: suite.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, rateLimitPerMinute: 1_000_000 }, failedTries });
  await app.ready();
  suite.apps.push(app);
  return app;
}

let n = 0;
/** A fresh client every call: IPv4 addresses and IPv6 /64s, so the per-address limit never applies. */
const nextIp = () => (++n % 2 ? `203.0.113.${n % 250}` : `2001:db8:${n.toString(16)}::1`);

/** A user with a dashboard password. */
async function owner(password = "the right password") {
  const user = await createTestUser(suite.database.db);
  await setPassword({ ctx: user.ctx, input: { password } });
  return { ...user, password };
}

const signIn = (app: FastifyInstance, email: string, password: string, headers: Record<string, string> = {}, remoteAddress = nextIp()) =>
  app.inject({ method: "POST", url: "/app/session", remoteAddress, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify({ email, password }) });

const cookies = (res: LightMyRequestResponse) => {
  const header = res.headers["set-cookie"];
  return (Array.isArray(header) ? header : [String(header)]).map((c) => c.split(";", 1)[0] ?? "");
};

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe.each(stores)("sign-in guesses per account, counted in %s", (_name, setup) => {
  it("200 wrong passwords from 23 addresses on two processes: the free ones and one more are checked; the right one waits minutes at most", async () => {
    const { processes, limit, wait } = await setup();
    const user = await owner();
    const addresses = Array.from({ length: 23 }, nextIp);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => signIn(processes[i % 2] as FastifyInstance, i % 3 ? user.email : user.email.toUpperCase(), `guess ${i}`, {}, addresses[i % 23])),
    );
    const counts = tally(responses.map((r) => r.statusCode));
    console.log(`sign-in, ${_name}: 200 wrong passwords from 23 addresses →`, JSON.stringify(counts));
    expect(counts).toEqual({ 401: limit.free + 1, 429: 200 - limit.free - 1 });
    // The right password now, from an address that never guessed: a 429 for at most the longest wait.
    const right = await signIn(processes[0], user.email, user.password);
    expect(right.statusCode).toBe(429);
    const retryAfter = Number(right.headers["retry-after"]);
    expect(retryAfter >= 1 && retryAfter <= Math.ceil(limit.maxDelayMs / 1000)).toBe(true);
    await wait(limit.maxDelayMs + 50);
    const after = await signIn(processes[1], user.email, user.password);
    expect(after.statusCode).toBe(200);
    expect(cookies(after)[0]).toMatch(/^shortener_session=/);
  });

  it("a guesser who keeps going gets waits that grow to the cap and never beyond", async () => {
    const { processes, limit, wait } = await setup();
    const user = await owner();
    for (let i = 0; i <= limit.free; i++) expect((await signIn(processes[i % 2] as FastifyInstance, user.email, "wrong")).statusCode).toBe(401);
    const waits: number[] = [];
    for (let step = 0; step < 5; step++) {
      const refused = await signIn(processes[step % 2] as FastifyInstance, user.email, "wrong");
      expect(refused.statusCode).toBe(429);
      const delay = Math.min(limit.maxDelayMs, limit.baseDelayMs * 2 ** step);
      waits.push(delay);
      await wait(delay + 50);
      expect((await signIn(processes[(step + 1) % 2] as FastifyInstance, user.email, "wrong")).statusCode).toBe(401);
    }
    expect(waits.at(-1)).toBe(limit.maxDelayMs);
  });

  it("the owner's browser that signed in before has a budget of its own: a guesser elsewhere cannot make it wait", async () => {
    const { processes, limit } = await setup();
    const user = await owner();
    const first = await signIn(processes[0], user.email, user.password);
    expect(first.statusCode).toBe(200);
    const device = cookies(first).find((c) => c.startsWith("shortener_device="));
    expect(device).toMatch(/^shortener_device=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    // Another account's device cookie: bound to the account it signed in to, no help here.
    const other = await owner();
    const otherDevice = cookies(await signIn(processes[0], other.email, other.password)).find((c) => c.startsWith("shortener_device="));
    const guesses = await Promise.all(Array.from({ length: 50 }, (_, i) => signIn(processes[i % 2] as FastifyInstance, user.email, `guess ${i}`)));
    expect(tally(guesses.map((r) => r.statusCode))).toEqual({ 401: limit.free + 1, 429: 50 - limit.free - 1 });
    const rows: Array<[string, Record<string, string>, number]> = [
      ["no device cookie", {}, 429],
      ["a device cookie with a forged signature", { cookie: `${String(device).slice(0, -3)}AAA` }, 429],
      ["another account's device cookie", { cookie: String(otherDevice) }, 429],
      ["the owner's device cookie", { cookie: String(device) }, 200],
    ];
    for (const [what, headers, status] of rows) expect((await signIn(processes[1], user.email, user.password, headers)).statusCode, what).toBe(status);
  });

  it("current_password guesses through a session count like sign-in guesses, and the session and keys keep working", async () => {
    const { processes, limit } = await setup();
    const user = await owner();
    const opened = await signIn(processes[0], user.email, user.password);
    expect(opened.statusCode).toBe(200);
    const session = cookies(opened).find((c) => c.startsWith("shortener_session=")) ?? "";
    const csrf = String(opened.json().data.csrf_token);
    const change = (app: FastifyInstance, current: string): Promise<LightMyRequestResponse> =>
      app.inject({
        method: "POST",
        url: "/trpc/auth.setPassword",
        remoteAddress: nextIp(),
        headers: { cookie: session, "x-csrf-token": csrf, "content-type": "application/json" },
        payload: JSON.stringify({ current_password: current, password: "a brand new password" }),
      } satisfies InjectOptions);
    const statuses: number[] = [];
    for (let i = 0; i <= limit.free; i++) statuses.push((await change(processes[i % 2] as FastifyInstance, `guess ${i}`)).statusCode);
    expect(statuses).toEqual(Array(limit.free + 1).fill(400));
    const refused = await change(processes[1], "another guess");
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.data.code).toBe("TOO_MANY_REQUESTS");
    // The same account's sign-in waits too: one budget.
    expect((await signIn(processes[0], user.email, "wrong")).statusCode).toBe(429);
    // A valid session and a valid key are never refused.
    const valid: Array<[string, InjectOptions]> = [
      ["the session", { method: "GET", url: "/trpc/auth.me", headers: { cookie: session } }],
      ["the key", { method: "GET", url: "/api/v1/account", headers: { authorization: `Bearer ${user.apiKey}` } }],
    ];
    for (const [what, request] of valid) for (const app of processes) expect((await app.inject({ ...request, remoteAddress: nextIp() })).statusCode, what).toBe(200);
  });
});
