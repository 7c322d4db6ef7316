export { createRedirect, type RedirectApp } from "./redirect.ts";
export { type ClickEvents, type RedirectConfig, type RedirectDeps, type VisitRecord } from "./deps.ts";
export { DEFAULT_CACHE } from "./cache.ts";
export { DEFAULT_CLICK_BUFFER } from "./clicks.ts";
export { DEFAULT_ORPHAN_BUFFER } from "./orphans.ts";
export { loadGeoIp, type GeoIp } from "./geoip.ts";
export { escapeHtml, htmlPage, messagePage } from "./pages.ts";
