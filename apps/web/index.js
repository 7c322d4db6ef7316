import { fileURLToPath } from "node:url";

/** Where the built dashboard is (`vite build` writes it): the API serves this folder at /app/. */
export const dashboardDir = fileURLToPath(new URL("./dist/", import.meta.url));
