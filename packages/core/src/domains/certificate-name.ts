import { isIP } from "node:net";
import { normalizeDomainName } from "../urls/url.ts";

/*
 * The name a TLS proxy asks a certificate for (`GET /tls/ask?domain=H`, docs/tls.md): the server name
 * of a handshake (SNI), which RFC 6066 §3 makes an ASCII host name, no port, no IP literal. Anything
 * else is a bad question, refused before any lookup.
 */

/** The longest host name DNS carries (RFC 1035: 253 characters without the trailing dot). */
export const MAX_CERTIFICATE_NAME_LENGTH = 253;

export type CertificateName = { ok: true; host: string } | { ok: false; message: string };

const refuse = (message: string): CertificateName => ({ ok: false, message });

/**
 * `raw` as the stored form of a domain name (lower case; one trailing dot dropped, since `name.` and
 * `name` are one host), or why it is not a name a certificate can be asked for: empty, over 253
 * characters, not ASCII (an IDN comes as its `xn--` form, as SNI carries it), with a port, an IPv4 or
 * IPv6 literal, or anything that is not dot-separated labels of letters, digits and hyphens.
 */
export function parseCertificateName(raw: string): CertificateName {
  if (raw.length > MAX_CERTIFICATE_NAME_LENGTH + 1) return refuse(`The domain must be at most ${MAX_CERTIFICATE_NAME_LENGTH} characters long.`);
  const value = raw.endsWith(".") ? raw.slice(0, -1) : raw;
  if (!value) return refuse("The domain parameter is required.");
  if (value.length > MAX_CERTIFICATE_NAME_LENGTH) return refuse(`The domain must be at most ${MAX_CERTIFICATE_NAME_LENGTH} characters long.`);
  if (/[\u0080-\uffff]/.test(value)) return refuse("The domain must be ASCII: an international name in its xn-- form.");
  if (value.startsWith("[") || isIP(value)) return refuse("The domain must be a host name, not an IP address.");
  if (/^[^:]*:\d*$/.test(value)) return refuse("The domain must be a host name without a port.");
  const host = /^[A-Za-z0-9.-]+$/.test(value) ? normalizeDomainName(value) : null;
  if (!host) return refuse("The domain must be a host name: labels of letters, digits and hyphens, separated by dots.");
  // A dotted quad normalizeDomainName accepts (it takes IPv4 domains) is still an address.
  if (isIP(host)) return refuse("The domain must be a host name, not an IP address.");
  return { ok: true, host };
}
