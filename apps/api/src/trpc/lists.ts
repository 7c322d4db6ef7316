import type { Page } from "@shortener/core";
import { pageMeta } from "../http/envelope.ts";

/** A tRPC list: REST's list envelope without `links`, `meta.path` and `status` (docs/adr/0005-trpc-and-client.md). */
export function toListJson<T, J>(page: Page<T>, toJson: (item: T) => J) {
  return { data: page.data.map(toJson), meta: pageMeta(page) };
}

/** A tRPC delete: REST's deleted envelope without `status`. */
export function toDeletedJson<O extends "link" | "domain" | "space" | "pixel" | "user" | "webhook" | "api_key" | "session" | "workspace" | "member" | "invitation">({ id }: { id: number }, object: O) {
  return { id, object, deleted: true as const };
}
