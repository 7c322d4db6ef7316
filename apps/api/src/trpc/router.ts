import { accountRouter, usersRouter } from "./account.ts";
import { auditRouter } from "./audit.ts";
import { authRouter } from "./auth.ts";
import { mergeRouters, router } from "./init.ts";
import { linkToolsRouter, tagsRouter } from "./link-tools.ts";
import { domainsRouter, linksRouter, pixelsRouter, spacesRouter } from "./resources.ts";
import { importsRouter } from "./imports.ts";
import { statsRouter } from "./stats.ts";
import { webhooksRouter } from "./webhooks.ts";
import { workspacesRouter } from "./workspaces.ts";

/** The tRPC API at `/trpc` (CONTRACT §11). */
export const appRouter = router({
  links: mergeRouters(linksRouter, linkToolsRouter),
  tags: tagsRouter,
  domains: domainsRouter,
  spaces: spacesRouter,
  pixels: pixelsRouter,
  account: accountRouter,
  users: usersRouter,
  stats: statsRouter,
  imports: importsRouter,
  webhooks: webhooksRouter,
  auth: authRouter,
  audit: auditRouter,
  workspaces: workspacesRouter,
});

export type AppRouter = typeof appRouter;
