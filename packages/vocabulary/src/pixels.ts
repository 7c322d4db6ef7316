/** The tracking pixels a link can carry (CONTRACT §9). */
export const PIXEL_TYPES = ["adroll", "bing", "facebook", "google-ads", "google-analytics", "google-tag-manager", "linkedin", "pinterest", "quora", "x", "tiktok"] as const;
export type PixelType = (typeof PIXEL_TYPES)[number];
