export { createRedirect, type RedirectApp } from "./redirect.ts";
export { DEFAULT_REDIRECT_CONFIG, type RedirectConfig, type RedirectDeps } from "./deps.ts";
export { escapeHtml, htmlPage, messagePage } from "./pages.ts";
