import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** SHA-256 hex: right for high-entropy tokens (API keys), never for passwords. */
export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

function scryptAsync(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Hashes a user-chosen password with scrypt; the result carries its parameters and salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split("$");
  if (scheme !== "scrypt" || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, "base64");
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(password, Buffer.from(saltB64, "base64"), expected.length, { N: Number(n), r: Number(r), p: Number(p) }, (err, k) => (err ? reject(err) : resolve(k))),
  );
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * True for a hash exactly as `hashPassword` writes it today (its parameters, a 16-byte salt, a 32-byte
 * key). An import may carry such a hash instead of a password (an export's round trip); nothing else
 * is taken, so an imported hash can never make a visit cost more than one of ours (a huge scrypt N).
 */
export function isPasswordHash(value: string): boolean {
  return /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/.test(value);
}
