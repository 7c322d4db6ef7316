import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { ImportFormat, WorkspaceRole } from "@shortener/vocabulary";
// The router's type only (docs/adr/0028-dashboard.md): nothing of the API's code reaches the bundle.
import type { AppRouter } from "@shortener/api";

export type Outputs = inferRouterOutputs<AppRouter>;
export type Inputs = inferRouterInputs<AppRouter>;
export type Link = Outputs["links"]["get"];
export type Domain = Outputs["domains"]["get"];
export type Me = Outputs["auth"]["me"];

/** The session's CSRF token (auth.me and sign-in hand it over); every mutation sends it back. */
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}
export function csrfHeaders(): Record<string, string> {
  return csrfToken ? { "x-csrf-token": csrfToken } : {};
}

export const trpcClient = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: "/trpc", maxItems: 10, headers: csrfHeaders })],
});

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** The `{ field: [sentence] }` of a validation error (the API's 422 messages), else {}. */
export function fieldErrorsOf(error: unknown): Record<string, string[]> {
  if (error instanceof TRPCClientError) {
    const data = error.data as { fieldErrors?: Record<string, string[]> | null } | undefined;
    return data?.fieldErrors ?? {};
  }
  return {};
}

export function messageOf(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const fields = fieldErrorsOf(error);
    const first = Object.values(fields)[0]?.[0];
    return first ?? error.message;
  }
  return error instanceof Error ? error.message : "Something went wrong.";
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "UNAUTHORIZED";
}

/** Sign-in and sign-out are REST (they set and clear the cookie): `/app/session`. */
export async function signIn(body: { email: string; password: string } | { api_key: string }): Promise<{ ok: true; me: Me } | { ok: false; message: string }> {
  const res = await fetch("/app/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
  if (res.ok) {
    const json = (await res.json()) as { data: Me };
    return { ok: true, me: json.data };
  }
  if (res.status === 429) return { ok: false, message: `Too many attempts. Try again in ${res.headers.get("retry-after") ?? "a few"} seconds.` };
  if (res.status === 401) return { ok: false, message: "api_key" in body ? "That key is not valid, or its user already has a password." : "Wrong email or password." };
  const json = (await res.json().catch(() => null)) as { message?: unknown } | null;
  return { ok: false, message: typeof json?.message === "string" ? json.message : "Signing in failed." };
}

/** What an invitation link leads to (`POST /app/invitations/preview`, public): shown before it is accepted. */
export type InvitationPreview = { workspace: { id: number; name: string }; role: WorkspaceRole; email: string | null; invited_by: string | null; expires_at: string };

/** The answer of a public JSON route of /app/: its `data`, or the API's message (a 422's first field message) and field errors. */
async function postAppJson<T>(path: string, body: unknown): Promise<{ ok: true; data: T } | { ok: false; message: string; fieldErrors: Record<string, string[]> }> {
  let res: Response;
  try {
    res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
  } catch {
    return { ok: false, message: "The request did not reach the server. Check the connection and try again.", fieldErrors: {} };
  }
  const json = (await res.json().catch(() => null)) as { data?: T; message?: unknown } | null;
  if (res.ok && json?.data !== undefined) return { ok: true, data: json.data };
  if (res.status === 429) return { ok: false, message: `Too many attempts. Try again in ${res.headers.get("retry-after") ?? "a few"} seconds.`, fieldErrors: {} };
  const message = json?.message;
  if (message !== null && typeof message === "object") {
    const fieldErrors = message as Record<string, string[]>;
    return { ok: false, message: Object.values(fieldErrors)[0]?.[0] ?? "The request was refused.", fieldErrors };
  }
  return { ok: false, message: typeof message === "string" ? message : `The request failed (HTTP ${res.status}).`, fieldErrors: {} };
}

/** `POST /app/invitations/preview`: where an invitation link leads, or why it no longer works. */
export function previewInvitation(token: string) {
  return postAppJson<InvitationPreview>("/app/invitations/preview", { token });
}

/**
 * `POST /app/invitations/accept`: a new person's account (name, email, password) with the membership,
 * signed in like `/app/session` (the cookie, the CSRF token), acting in the workspace joined (docs/teams.md).
 */
export function signUpWithInvitation(body: { token: string; name: string; email: string; password: string }) {
  return postAppJson<{ csrf_token: string }>("/app/invitations/accept", body);
}
/** Which sign-ins the service offers: single sign-on when OIDC_* are set (`GET /app/session/providers`). */
export async function signInProviders(): Promise<{ password: boolean; sso: boolean }> {
  try {
    const res = await fetch("/app/session/providers", { credentials: "same-origin" });
    const json = (await res.json()) as { data?: { password?: unknown; sso?: unknown } };
    return { password: json.data?.password !== false, sso: json.data?.sso === true };
  } catch {
    return { password: true, sso: false };
  }
}

/** Where "Sign in with SSO" goes: the API starts the OpenID Connect flow and brings the browser back signed in. */
export const SSO_START_URL = "/app/session/sso";

export async function signOut(): Promise<void> {
  await fetch("/app/session", { method: "DELETE", headers: csrfHeaders(), credentials: "same-origin" });
  setCsrfToken(null);
}

/** A random Idempotency-Key (`crypto.randomUUID` needs HTTPS; `getRandomValues` works over plain HTTP too). */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export type UploadAnswer = { ok: true; id: number; isNew: boolean } | { ok: false; message: string; fieldErrors: Record<string, string[]> };

/**
 * A CSV upload is REST (tRPC carries no files): `POST /api/v1/imports` as multipart, with the session
 * cookie and its CSRF header (docs/adr/0028-dashboard.md). The same `idempotencyKey` again (a retry
 * after a lost answer) gives the same job, not a second one.
 */
export async function uploadImport(file: File, options: { domainId: number | null; format: ImportFormat; idempotencyKey: string }): Promise<UploadAnswer> {
  const body = new FormData();
  if (options.domainId !== null) body.append("domain_id", String(options.domainId));
  body.append("format", options.format);
  body.append("file", file);
  let res: Response;
  try {
    res = await fetch("/api/v1/imports", { method: "POST", headers: { ...csrfHeaders(), "idempotency-key": options.idempotencyKey }, body, credentials: "same-origin" });
  } catch {
    return { ok: false, message: "The upload did not reach the server. Check the connection and try again.", fieldErrors: {} };
  }
  const json = (await res.json().catch(() => null)) as { data?: { id?: unknown }; message?: unknown } | null;
  const id = json?.data?.id;
  if (res.ok && typeof id === "number") return { ok: true, id, isNew: res.status === 202 };
  if (res.status === 429) return { ok: false, message: `Too many requests. Try again in ${res.headers.get("retry-after") ?? "a few"} seconds.`, fieldErrors: {} };
  const message = json?.message;
  if (message !== null && typeof message === "object") {
    const fieldErrors = message as Record<string, string[]>;
    return { ok: false, message: Object.values(fieldErrors)[0]?.[0] ?? "The file was refused.", fieldErrors };
  }
  return { ok: false, message: typeof message === "string" ? message : `Uploading failed (HTTP ${res.status}).`, fieldErrors: {} };
}
