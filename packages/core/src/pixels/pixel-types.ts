/** The tracking pixels a link can carry (CONTRACT §9): a word of @shortener/vocabulary, shared with the dashboard. */
export { PIXEL_TYPES, type PixelType } from "@shortener/vocabulary";
