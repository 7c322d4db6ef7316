import { accountRouter, usersRouter } from "./account.ts";
import { router } from "./init.ts";
import { domainsRouter, linksRouter, pixelsRouter, spacesRouter } from "./resources.ts";

/** The tRPC API at `/trpc` (CONTRACT §11). `stats` and `imports` arrive with their REST routes. */
export const appRouter = router({
  links: linksRouter,
  domains: domainsRouter,
  spaces: spacesRouter,
  pixels: pixelsRouter,
  account: accountRouter,
  users: usersRouter,
});

export type AppRouter = typeof appRouter;
