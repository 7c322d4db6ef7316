import type { IncomingMessage } from "node:http";
import { hasPassCookie, passCookieHeader, signPass as sign } from "@shortener/core";

/** The cookie that lets a visitor who gave a link's password skip the form (CONTRACT §7.6). */
export function passCookieName(linkId: number): string {
  return `pass_${linkId}`;
}

/** The pass for a link: signed over the link id and its current password hash (core's `signPass`). */
export function signPass(secret: string, linkId: number, passwordHash: string): string {
  return sign(secret, String(linkId), passwordHash);
}

export function hasValidPass(req: IncomingMessage, secret: string, linkId: number, passwordHash: string): boolean {
  return hasPassCookie(req.headers.cookie, passCookieName(linkId), signPass(secret, linkId, passwordHash));
}

export function passCookie(linkId: number, alias: string, value: string, isSecure: boolean): string {
  return passCookieHeader(passCookieName(linkId), value, `/${alias}`, isSecure);
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
