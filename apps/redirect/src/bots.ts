import type { IncomingMessage } from "node:http";
import type { AgentInfo } from "./traits.ts";

/** A visit's bot name when it is not a person's (CONTRACT §21), else null: HEAD, prefetches, no User-Agent, a crawler. */
export function botOf(req: IncomingMessage, agent: AgentInfo): string | null {
  if (req.method === "HEAD") return "HEAD request";
  const purpose = req.headers["sec-purpose"] ?? req.headers.purpose;
  if (typeof purpose === "string" && purpose.toLowerCase().includes("prefetch")) return "Prefetch";
  if (!req.headers["user-agent"]) return "No User-Agent";
  return agent.isBot ? (agent.botName ?? "Other bot") : null;
}
