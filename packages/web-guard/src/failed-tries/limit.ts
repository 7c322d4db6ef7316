/**
 * The one definition of the failed-try limit (CONTRACT §15): at most 10 failed tries per client group
 * and target in a fixed 15-minute window. Link passwords, stats passwords and API keys all use it.
 */
export const FAILED_TRY_LIMIT: FailedTryLimit = Object.freeze({ max: 10, windowMs: 15 * 60_000 });

export type FailedTryLimit = { readonly max: number; readonly windowMs: number };
