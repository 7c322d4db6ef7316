/** Where the built dashboard is (`vite build` writes it): the API serves this folder at /app/. */
export declare const dashboardDir: string;
