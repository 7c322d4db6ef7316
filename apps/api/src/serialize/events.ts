import type { EventData } from "@shortener/core";
import type { ApiConfig } from "../deps.ts";
import { importJson } from "./imports.ts";
import { createSerializers } from "./resources.ts";

/**
 * The `data` of webhook events, rendered by the API's own serialisers, so a `link.*` event carries the
 * link exactly as REST answers it to a `links:read` key (CONTRACT §3: its domain's `verification`
 * record withheld, a webhook's receiver holds no `domains:read`) and `import.completed` the job as
 * `GET /imports/{id}` does (§12). The launcher hands the same renderer to the import worker.
 */
export function createEventData(config: Pick<ApiConfig, "shortUrlScheme">): EventData {
  const json = createSerializers(config);
  return { link: (link) => json.link(link), importJob: (job) => importJson(job, job.errors) };
}
