// Run by `pnpm build` after tsc: leaves an empty, migrated embedded database in dist/embedded-template,
// which a first start copies instead of running initdb (embedded.ts, docs/adr/0030-memory-at-rest.md).
import { makeEmbeddedTemplate, TEMPLATE_DIR } from "./embedded.ts";

await makeEmbeddedTemplate(process.argv[2] ?? TEMPLATE_DIR);
