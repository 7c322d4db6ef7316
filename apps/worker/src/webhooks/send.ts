import http from "node:http";
import https from "node:https";
import { pinnedLookup, type Target } from "./target.ts";

export type SendOptions = {
  /** The whole exchange, from connecting to the response's status line, must fit in this (CONTRACT §18: 10 s). */
  timeoutMs: number;
  /** At most this much of the response body is read (64 KiB); the rest is not waited for. */
  maxResponseBytes: number;
  agents: { http: http.Agent; https: https.Agent };
};

export type SendResult = {
  responseCode: number | null;
  /** The start of the response body, as text. */
  responseBody: string | null;
  error: string | null;
  durationMs: number;
};

/** Keep-alive agents: one connection per receiver is reused from one delivery to the next. */
export function createAgents(): SendOptions["agents"] {
  return { http: new http.Agent({ keepAlive: true, maxSockets: 4 }), https: new https.Agent({ keepAlive: true, maxSockets: 4 }) };
}

/**
 * POSTs `body` to a checked target: the socket connects to `target.address` (a `lookup` that answers
 * only that address, so the name is not resolved again), while the Host header, TLS SNI and the
 * certificate check use the URL's host. Redirects are not followed (a 3xx is a failure). Never throws.
 */
export async function sendDelivery(target: Extract<Target, { ok: true }>, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const first = await sendOnce(target, body, headers, options, options.timeoutMs);
  // A kept-alive connection the receiver had just closed: the request never reached it, send it again once on a new one.
  const result = first.isStaleSocket ? await sendOnce(target, body, headers, options, Math.max(1, options.timeoutMs - (performance.now() - started))) : first;
  const { isStaleSocket: _stale, ...rest } = result;
  return { ...rest, durationMs: Math.round(performance.now() - started) };
}

function sendOnce(
  target: Extract<Target, { ok: true }>,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
  timeoutMs: number,
): Promise<Omit<SendResult, "durationMs"> & { isStaleSocket: boolean }> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const { url } = target;
  const isHttps = url.protocol === "https:";
  const pinned = pinnedLookup(target);
  return new Promise((resolve) => {
    let isDone = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<SendResult, "durationMs">, isStaleSocket = false) => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      resolve({ ...result, isStaleSocket });
    };
    const request = (isHttps ? https : http).request(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || (isHttps ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        lookup: pinned,
        agent: isHttps ? options.agents.https : options.agents.http,
      },
      (response) => {
        const code = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let received = 0;
        const settle = () => {
          const text = Buffer.concat(chunks).subarray(0, options.maxResponseBytes).toString("utf8");
          const isSuccess = code >= 200 && code < 300;
          const error = isSuccess ? null : code >= 300 && code < 400 ? `HTTP ${code} (redirects are not followed)` : `HTTP ${code}`;
          finish({ responseCode: code, responseBody: text, error });
        };
        response.on("data", (chunk: Buffer) => {
          if (received < options.maxResponseBytes) chunks.push(chunk);
          received += chunk.length;
          if (received >= options.maxResponseBytes) {
            settle();
            response.destroy();
          }
        });
        response.on("end", settle);
        response.on("error", settle);
        response.on("close", settle);
        // The status is in: a slow body only shortens what is read of it.
        clearTimeout(timer);
        timer = setTimeout(
          () => {
            settle();
            response.destroy();
          },
          Math.max(0, timeoutMs - elapsed()),
        );
      },
    );
    timer = setTimeout(() => {
      finish({ responseCode: null, responseBody: null, error: `Timed out after ${options.timeoutMs / 1000} s without a response.` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      const isStale = request.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
      finish({ responseCode: null, responseBody: null, error: `Connection failed (${error.code ?? error.message}).` }, isStale);
    });
    request.end(body);
  });
}
