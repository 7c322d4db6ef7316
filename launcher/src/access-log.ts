import type { ApiRequestRecord } from "@shortener/api";
import type { VisitRecord } from "@shortener/redirect";

type Write = (line: string) => void;

/**
 * The access log of CONTRACT §16: one JSON line per request on stdout. API lines carry the time
 * (ISO-8601), method, route pattern, status, duration in ms and the API key's id, never the key, a
 * query string or a body. Visit lines (`ACCESS_LOG=all`) carry the host and path without the query.
 */
export function createAccessLog(write: Write) {
  return {
    api(record: ApiRequestRecord): void {
      write(
        `${JSON.stringify({
          type: "api",
          time: new Date().toISOString(),
          method: record.method,
          route: record.route,
          status: record.status,
          duration_ms: Math.round(record.durationMs * 100) / 100,
          key_id: record.keyId,
        })}\n`,
      );
    },
    visit(record: VisitRecord): void {
      write(
        `${JSON.stringify({
          type: "visit",
          time: new Date().toISOString(),
          method: record.method,
          host: record.host.slice(0, 255),
          path: record.path.slice(0, 300),
          status: record.status,
          duration_ms: Math.round(record.durationMs * 100) / 100,
        })}\n`,
      );
    },
  };
}
