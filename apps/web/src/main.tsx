import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App.tsx";
import { applyTheme, storedTheme } from "./theme.ts";
import { TRPCProvider, isUnauthorized, trpcClient } from "./trpc.ts";
import "./styles.css";

applyTheme(storedTheme());

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: (count, error) => !isUnauthorized(error) && count < 2, refetchOnWindowFocus: false, staleTime: 5_000 },
  },
});

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {/* The API answers every screen's path under /app/ with index.html (docs/adr/0034-dashboard-libraries-and-vocabulary.md). */}
          <BrowserRouter basename="/app/">
            <App />
          </BrowserRouter>
        </TRPCProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
