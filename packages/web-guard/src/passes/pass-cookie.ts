import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed passes: the cookies that let a visitor who gave a password skip its form — a link's password on
 * the visitor side (CONTRACT §7.6) and a link's privacy password on its stats page (§8). A pass is
 * `<expiry>.<signature>`: the expiry in epoch seconds, and an HMAC-SHA256, under the service secret, of
 * what the pass is for, the password's current hash and that expiry (§15). So a pass stops working when
 * it expires (whatever the browser keeps), when the password changes (another hash), and when any byte
 * of it is changed.
 */
export const PASS_LIFETIME_SECONDS = 24 * 60 * 60;

const PASS = /^(\d{10,12})\.([A-Za-z0-9_-]{43})$/;

function signature(secret: string, subject: string, passwordHash: string, expires: number): string {
  return createHmac("sha256", secret).update(`${subject}\n${passwordHash}\n${expires}`).digest("base64url");
}

/** A new pass for `subject`, valid for `lifetimeSeconds` (at most a day) from `now`. */
export function issuePass(options: { secret: string; subject: string; passwordHash: string; now: Date; lifetimeSeconds?: number }): { value: string; maxAge: number } {
  const maxAge = Math.min(options.lifetimeSeconds ?? PASS_LIFETIME_SECONDS, PASS_LIFETIME_SECONDS);
  const expires = Math.floor(options.now.getTime() / 1000) + maxAge;
  return { value: `${expires}.${signature(options.secret, options.subject, options.passwordHash, expires)}`, maxAge };
}

/**
 * Whether `value` is a pass this service issued for `subject` and the password whose hash is
 * `passwordHash`, and has not expired at `now`. The signature is compared in constant time.
 */
export function isValidPass(value: string | undefined, options: { secret: string; subject: string; passwordHash: string; now: Date }): boolean {
  const match = value ? PASS.exec(value) : null;
  if (!match) return false;
  const expires = Number(match[1]);
  const nowSeconds = options.now.getTime() / 1000;
  if (!(expires > nowSeconds) || expires > nowSeconds + PASS_LIFETIME_SECONDS + 60) return false;
  const given = Buffer.from(match[2] ?? "");
  const wanted = Buffer.from(signature(options.secret, options.subject, options.passwordHash, expires));
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** `Set-Cookie` for a pass: HttpOnly, scoped to `path`, as long as the pass lives, `Secure` over HTTPS. */
export function passCookieHeader(name: string, pass: { value: string; maxAge: number }, path: string, isSecure: boolean): string {
  return `${name}=${pass.value}; Path=${path}; Max-Age=${pass.maxAge}; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
