/** The visitor side's small pages: self-contained HTML, no external assets, readable without CSS. */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const STYLE =
  "body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;background:#f6f8fa;display:flex;min-height:100vh;align-items:center;justify-content:center}" +
  "main{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:2rem 2.5rem;max-width:28rem;margin:1rem;text-align:center}" +
  "h1{font-size:1.5rem;margin:0 0 .5rem}p{margin:.5rem 0;color:#57606a}.code{font-size:3rem;font-weight:700;color:#8c959f;margin:0}" +
  "@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}main{background:#161b22;border-color:#30363d}p{color:#8b949e}}";

/** A whole page; `body` is trusted HTML the caller built from escaped parts. */
export function htmlPage(title: string, body: string, extraHead = ""): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style>${extraHead}</head>` +
    `<body><main>${body}</main></body></html>`
  );
}

export function messagePage(status: number, title: string, message: string): string {
  return htmlPage(title, `<p class="code" aria-hidden="true">${status}</p><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

export const NOT_FOUND_PAGE = messagePage(404, "Link not found", "There is no link at this address.");
export const UNKNOWN_HOST_PAGE = messagePage(404, "Not found", "This address is not served here.");

export const DISABLED_PAGE = messagePage(404, "Link not found", "There is no link at this address.");
export const EXPIRED_PAGE = messagePage(410, "Link expired", "This link has expired and no longer leads anywhere.");
/** CONTRACT §16: the visit needs the database, which cannot be reached. */
export const UNAVAILABLE_PAGE = messagePage(503, "Temporarily unavailable", "This link cannot be opened right now. Please try again in a moment.");
/** The message pages' own CSP: nothing but their inline style, and never inside a frame. */
export const MESSAGE_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const TOO_MANY_TRIES_PAGE = messagePage(429, "Too many tries", "Too many wrong passwords. Please wait a few minutes and try again.");

/** The password form: it reveals nothing of the destination. */
export function passwordPage(isWrong: boolean): string {
  const error = isWrong ? `<p role="alert" style="color:#cf222e">That password is not right.</p>` : "";
  return htmlPage(
    "Password required",
    `<h1>This link is protected</h1><p>Enter its password to continue.</p>${error}` +
      `<form method="post" autocomplete="off"><label for="password" style="display:block;text-align:left;margin:1rem 0 .25rem">Password</label>` +
      `<input id="password" name="password" type="password" required maxlength="128" autofocus style="width:100%;box-sizing:border-box;padding:.6rem;font:inherit;border:1px solid #8c959f;border-radius:6px">` +
      `<button type="submit" style="margin-top:1rem;width:100%;padding:.6rem;font:inherit;font-weight:600;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer">Continue</button></form>`,
  );
}
