import type { IncomingMessage } from "node:http";
import { issuePass, isValidPass, passCookieHeader, readCookie } from "@shortener/web-guard";

/**
 * The pass that lets a visitor who gave a link's password skip the form (CONTRACT §7.6): a signed pass
 * (web-guard) over the link id and its current password hash, with its own expiry (§15).
 */
export function passCookieName(linkId: number): string {
  return `pass_${linkId}`;
}

type PassFor = { secret: string; linkId: number; passwordHash: string; now: Date };

const subject = (linkId: number) => String(linkId);

export function hasValidPass(req: IncomingMessage, pass: PassFor): boolean {
  return isValidPass(readCookie(req.headers.cookie, passCookieName(pass.linkId)), { ...pass, subject: subject(pass.linkId) });
}

/** `Set-Cookie` for a new pass, scoped to the link's path. */
export function passCookie(pass: PassFor & { alias: string; isSecure: boolean }): string {
  const issued = issuePass({ ...pass, subject: subject(pass.linkId) });
  return passCookieHeader(passCookieName(pass.linkId), issued, `/${pass.alias}`, pass.isSecure);
}

/** Reads a small form body (the password form): at most `limit` bytes, else null. */
export function readFormBody(req: IncomingMessage, limit = 8 * 1024): Promise<URLSearchParams | null> {
  return new Promise((resolve) => {
    const type = req.headers["content-type"] ?? "";
    if (!type.startsWith("application/x-www-form-urlencoded")) {
      req.resume();
      resolve(null);
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.destroy();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", () => resolve(null));
  });
}
