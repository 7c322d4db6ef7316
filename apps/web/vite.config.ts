import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The dashboard is served at /app/ by the API (apps/api/src/routes/dashboard.ts); everything is bundled, no CDN.
 * Workspace packages (@shortener/vocabulary) are bundled from their TypeScript sources (the
 * `@shortener/source` condition, as in tests), so a fresh clone builds the dashboard without building them.
 */
export default defineConfig({
  base: "/app/",
  plugins: [react()],
  resolve: { conditions: ["@shortener/source", "module", "browser", "development|production"] },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false, assetsInlineLimit: 0 },
  // The CSV upload and its errors file are REST (`/api/v1/imports`), with the session too; an invitation link's page calls `/app/invitations/*`.
  server: { proxy: { "/trpc": "http://localhost:3000", "/app/session": "http://localhost:3000", "/app/invitations": "http://localhost:3000", "/api/v1": "http://localhost:3000" } },
});
