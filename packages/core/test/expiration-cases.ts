/**
 * The tables the expiry rules are tested on: `expiration.test.ts` runs the JS rules over them, and the
 * database tests run the SQL copies over the same rows (`status.db.test.ts`, `limited-clicks.db.test.ts`).
 */
export const STATUS_NOW = new Date("2026-06-01T12:00:00Z");

/** CONTRACT §6: 1 Active, 2 Expired, 3 Disabled. */
export const STATUS_CASES = [
  { disabled: false, endsAt: null, expirationClicks: 0, clicks: 0, expected: 1 },
  { disabled: false, endsAt: null, expirationClicks: 0, clicks: 1e6, expected: 1 },
  { disabled: false, endsAt: new Date("2026-06-01T12:00:01Z"), expirationClicks: 0, clicks: 0, expected: 1 },
  { disabled: false, endsAt: new Date("2026-06-01T12:00:00Z"), expirationClicks: 0, clicks: 0, expected: 2 },
  { disabled: false, endsAt: new Date("2025-01-01T00:00:00Z"), expirationClicks: 0, clicks: 0, expected: 2 },
  { disabled: false, endsAt: null, expirationClicks: 5, clicks: 4, expected: 1 },
  { disabled: false, endsAt: null, expirationClicks: 5, clicks: 5, expected: 2 },
  { disabled: false, endsAt: null, expirationClicks: 5, clicks: 6, expected: 2 },
  { disabled: true, endsAt: null, expirationClicks: 0, clicks: 0, expected: 3 },
  { disabled: true, endsAt: new Date("2025-01-01T00:00:00Z"), expirationClicks: 1, clicks: 9, expected: 3 },
] as const;

/** CONTRACT §7 step 11: `wanted` visitors arrive at a link with `limit` and counter `before`. */
export const ADMISSION_CASES = [
  { limit: 5, before: 0, wanted: 1, admitted: 1, after: 1 },
  { limit: 5, before: 0, wanted: 3, admitted: 3, after: 3 },
  { limit: 5, before: 3, wanted: 3, admitted: 2, after: 5 },
  { limit: 5, before: 4, wanted: 64, admitted: 1, after: 5 },
  { limit: 5, before: 5, wanted: 1, admitted: 0, after: 5 },
  { limit: 5, before: 7, wanted: 2, admitted: 0, after: 7 },
  { limit: 0, before: 0, wanted: 1, admitted: 0, after: 0 },
  { limit: 0, before: 12, wanted: 3, admitted: 0, after: 12 },
  { limit: 1, before: 0, wanted: 1, admitted: 1, after: 1 },
] as const;
