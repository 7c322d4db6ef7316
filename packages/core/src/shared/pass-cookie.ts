import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed passes: the cookies that let a visitor who gave a password skip its form — a link's password on
 * the visitor side (CONTRACT §7.6) and a link's privacy password on its stats page (§8). A pass is an
 * HMAC, under the service secret, of what it is for and the password's current hash, so a changed
 * password changes the hash and every earlier pass stops matching.
 */
export function signPass(secret: string, subject: string, passwordHash: string): string {
  return createHmac("sha256", secret).update(`${subject}\n${passwordHash}`).digest("base64url");
}

/** Whether the request's cookie `name` holds exactly `expected`, compared in constant time. */
export function hasPassCookie(cookieHeader: string | undefined, name: string, expected: string): boolean {
  const value = readCookie(cookieHeader, name);
  if (!value) return false;
  const given = Buffer.from(value);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** `Set-Cookie` for a pass: HttpOnly, scoped to `path`, a day long, `Secure` over HTTPS. */
export function passCookieHeader(name: string, value: string, path: string, isSecure: boolean): string {
  return `${name}=${value}; Path=${path}; Max-Age=86400; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
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
