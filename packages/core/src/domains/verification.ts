import { randomBase62 } from "../secrets/random.ts";
import { hostWithoutPort } from "./claim.ts";

/** The DNS record that proves a domain (CONTRACT §14): a TXT record its owner publishes. */
export type VerificationRecord = { type: "TXT"; name: string; value: string };

/** Where the record goes: `_shortener-challenge.` + the host without its port. */
export const CHALLENGE_LABEL = "_shortener-challenge";
const VALUE_PREFIX = "shortener-verify=";

/** A new domain's token: 32 random base-62 characters (190 bits). */
export function newVerificationToken(): string {
  return randomBase62(32);
}

/** The record an unverified domain's owner must publish; null once the domain is verified. */
export function verificationRecordOf(domain: { name: string; verifiedAt: Date | null; verificationToken: string | null }): VerificationRecord | null {
  if (domain.verifiedAt || !domain.verificationToken) return null;
  return { type: "TXT", name: `${CHALLENGE_LABEL}.${hostWithoutPort(domain.name)}`, value: `${VALUE_PREFIX}${domain.verificationToken}` };
}
