import type { SessionRow } from "@shortener/core";

/** A dashboard session as its owner sees it (CONTRACT §19): never its token; `current` for the asking one. */
export function sessionJson(session: SessionRow, currentId: number | undefined) {
  return {
    id: session.id,
    user_agent: session.userAgent,
    current: session.id === currentId,
    created_at: session.createdAt.toISOString(),
    last_seen_at: (session.lastSeenAt ?? session.createdAt).toISOString(),
    expires_at: session.expiresAt.toISOString(),
  };
}
