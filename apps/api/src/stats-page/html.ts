/** HTML helpers of the public stats page: every user-controlled string goes through `escapeHtml`. */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** The page's Content-Security-Policy: nothing loads, styles only from the nonce'd block, images only inline. */
export function statsCsp(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

const NUMBER = new Intl.NumberFormat("en-US");
export function formatCount(n: number): string {
  return NUMBER.format(n);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** `2026-06-01` → `Jun 1` (or `Jun 1, 2026` with the year). */
export function formatDay(day: string, withYear = false): string {
  const [y, m, d] = day.split("-");
  const label = `${MONTHS[Number(m) - 1] ?? m} ${Number(d)}`;
  return withYear ? `${label}, ${y}` : label;
}

const REGIONS = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });
const LANGUAGES = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

/** A readable name for a country code or a language code; anything else as it is. */
export function displayName(kind: "country" | "language", code: string): string {
  try {
    if (kind === "country" && /^[A-Z]{2}$/.test(code)) return REGIONS.of(code) ?? code;
    if (kind === "language" && /^[a-z]{2,3}$/.test(code)) return LANGUAGES.of(code) ?? code;
  } catch {
    // Not a code Intl knows: shown as stored.
  }
  return code;
}

const STYLE = `
:root{--bg:#f5f6fa;--card:#fff;--text:#1c2030;--muted:#5f6b7d;--border:#e3e6ee;--grid:#eceef4;--track:#f1f3f8;--accent:#4f46e5;--accent-2:#818cf8;
--country:#0284c7;--platform:#059669;--browser:#d97706;--device:#7c3aed;--language:#db2777;--referrer:#ea580c;--hour:#0891b2}
@media (prefers-color-scheme:dark){:root{--bg:#0c0f16;--card:#151a24;--text:#e7eaf0;--muted:#97a1b3;--border:#262d3b;--grid:#222a37;--track:#1c2330;--accent:#818cf8;--accent-2:#6366f1;
--country:#38bdf8;--platform:#34d399;--browser:#fbbf24;--device:#a78bfa;--language:#f472b6;--referrer:#fb923c;--hour:#22d3ee}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--accent)}
.wrap{max-width:1080px;margin:0 auto;padding:28px 20px 48px}
header.top{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-end;justify-content:space-between;margin-bottom:20px}
.eyebrow{margin:0;font-size:12px;font-weight:600;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
h1{margin:2px 0 4px;font-size:26px;line-height:1.25;word-break:break-word}
.short{margin:0;color:var(--muted);word-break:break-all}
.range{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.presets{display:flex;gap:4px;flex-wrap:wrap}
.presets a{padding:6px 10px;border-radius:8px;border:1px solid var(--border);background:var(--card);color:var(--text);text-decoration:none;font-size:13px}
.presets a[aria-current]{background:var(--accent);border-color:var(--accent);color:#fff}
.range form{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font-size:13px;color:var(--muted)}
.range input{font:inherit;color:var(--text);background:var(--card);border:1px solid var(--border);border-radius:8px;padding:5px 8px}
.range button,.pw button{font:inherit;font-weight:600;border:0;border-radius:8px;background:var(--accent);color:#fff;padding:6px 12px;cursor:pointer}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:0 0 16px;padding:0;list-style:none}
.card{background:var(--card);border:1px solid var(--border);border-radius:14px;padding:14px 16px}
.card .k{margin:0;font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.06em;font-weight:600}
.card .v{margin:4px 0 0;font-size:22px;font-weight:700;line-height:1.25;word-break:break-word}
.card .s{margin:0;font-size:13px;color:var(--muted)}
.panel{background:var(--card);border:1px solid var(--border);border-radius:14px;padding:16px 18px;margin-bottom:16px}
.panel h2{margin:0 0 10px;font-size:16px}
.panel h2 small{font-weight:400;color:var(--muted);font-size:13px;margin-left:6px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px}
.grid .panel{margin-bottom:0}
.grid{margin-bottom:16px}
svg{display:block;width:100%;height:auto;overflow:visible}
svg text{font-family:inherit}
.gridline{stroke:var(--grid);stroke-width:1}
.axis{fill:var(--muted);font-size:11px}
.bar{fill:var(--accent)}
.bar.peak{fill:var(--accent-2)}
.hour{fill:var(--hour)}
.peak-label{fill:var(--text);font-size:12px;font-weight:700}
.track{fill:var(--track)}
.hbar{fill:var(--tone);fill-opacity:.28}
.hlabel{fill:var(--text);font-size:12.5px}
.hcount{fill:var(--text);font-size:12.5px;font-weight:600}
.hshare{fill:var(--muted);font-size:11.5px}
.tone-country{--tone:var(--country)}.tone-platform{--tone:var(--platform)}.tone-browser{--tone:var(--browser)}
.tone-device{--tone:var(--device)}.tone-language{--tone:var(--language)}.tone-referrer{--tone:var(--referrer)}
.empty{color:var(--muted);margin:6px 0}
details{margin-top:10px;font-size:13px}
summary{cursor:pointer;color:var(--muted)}
table{border-collapse:collapse;width:100%;margin-top:8px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--border)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.table-scroll{max-height:320px;overflow:auto}
.alert{color:#cf222e;font-weight:600}
footer{margin-top:24px;color:var(--muted);font-size:13px;text-align:center}
.pw{max-width:380px;margin:12vh auto;background:var(--card);border:1px solid var(--border);border-radius:14px;padding:28px 30px;text-align:center}
.pw label{display:block;text-align:left;margin:16px 0 4px;font-weight:600}
.pw input{width:100%;font:inherit;padding:9px 10px;border:1px solid var(--border);border-radius:8px;background:var(--bg);color:var(--text)}
.pw button{width:100%;margin-top:14px;padding:10px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){.wrap{padding:20px 12px 40px}h1{font-size:22px}.range input{max-width:9.5rem}.cards{grid-template-columns:repeat(2,minmax(0,1fr))}.grid{grid-template-columns:minmax(0,1fr)}.panel{padding:14px 12px}.pw{margin:8vh 12px;padding:24px 18px}}
`;

/** A whole page. `body` is trusted HTML built from escaped parts; the style block carries the CSP nonce. */
export function statsHtmlPage(title: string, body: string, nonce: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><meta name="color-scheme" content="light dark"><link rel="icon" href="data:,">` +
    `<title>${escapeHtml(title)}</title><style nonce="${escapeHtml(nonce)}">${STYLE}</style></head><body>${body}</body></html>`
  );
}
