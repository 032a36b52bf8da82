// The HTML of /share/{token}: the dashboard (server-rendered headline numbers inside the widgets'
// tags, so a browser without JavaScript still reads them), the password form, and "not available".
// Every value a person wrote (the share's title, the link's title, the campaign's name) is escaped.
import type { ShareReport } from "./model";

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Headers of every answer under /share/: never indexed, cached or sent on as a Referer (the token is in the URL). */
export const SHARE_HEADERS = {
  "x-robots-tag": "noindex, nofollow",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** The page's policy: our own script and data only; framed only by the owner's origins. */
export function pageHeaders(frameOrigins: readonly string[]): Record<string, string> {
  const ancestors = frameOrigins.length ? frameOrigins.join(" ") : "'none'";
  const headers: Record<string, string> = {
    ...SHARE_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors ${ancestors}`,
  };
  // X-Frame-Options cannot name several origins; browsers that know frame-ancestors ignore it anyway.
  if (!frameOrigins.length) headers["x-frame-options"] = "DENY";
  return headers;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#111827;background:#f9fafb}
header,main{max-width:72rem;margin:0 auto;padding:1rem}h1{margin:.5rem 0 0;font-size:1.5rem}.muted{color:#6b7280;margin:.25rem 0}
main{display:grid;grid-template-columns:repeat(auto-fill,minmax(22rem,1fr));gap:1rem}main>*{display:block}
dl.headline{display:grid;grid-template-columns:1fr auto;gap:.25rem 1rem;background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:1rem;margin:0}
dl.headline dt{color:#6b7280}dl.headline dd{margin:0;font-weight:600;text-align:right}.nojs{color:#6b7280}
form{max-width:24rem}input,button{font:inherit;padding:.5rem;margin:.25rem 0;width:100%;box-sizing:border-box}.err{color:#b00020}
@media (prefers-color-scheme:dark){body{background:#030712;color:#f3f4f6}dl.headline{background:#111827;border-color:#374151}}`;

const htmlDocument = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title><style>${STYLE}</style>
</head><body>${body}</body></html>`;

export const notAvailablePage = () =>
  htmlDocument(
    "Dashboard not available",
    `<main><section><h1>Dashboard not available</h1><p>This shared dashboard does not exist, has been turned off, or its address has expired.</p></section></main>`,
  );

export const passwordPage = (title: string, token: string, error?: string) =>
  htmlDocument(
    title,
    `<header><h1>${escapeHtml(title)}</h1><p class="muted">A read-only dashboard.</p></header><main><form method="post" action="/share/${escapeHtml(token)}">
<label for="password">Enter the dashboard's password:</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus maxlength="200">
${error ? `<p class="err" role="alert">${escapeHtml(error)}</p>` : ""}
<button type="submit">View the dashboard</button></form></main>`,
  );

export const tooManyPage = (title: string, what: "attempts" | "requests", retryAfter: number) =>
  htmlDocument(title, `<main><section><h1>Too many ${what}</h1><p>Try again in ${retryAfter} seconds.</p></section></main>`);

/** A headline figure: its label and its value, already formatted. */
export type Figure = [label: string, value: string];

export interface DashboardView {
  title: string;
  /** "All links", "Campaign: …" or "Link: …" (not escaped yet). */
  subject: string;
  token: string;
  reports: readonly ShareReport[];
  funnelSteps: readonly string[];
  /** The comparison the owner chose for the reports that compare; null: none. */
  compare: string | null;
  /** Server-rendered numbers per report, shown without JavaScript. */
  headlines: Partial<Record<ShareReport, Figure[]>>;
}

const NO_SCRIPT = `<p class="nojs">This chart needs JavaScript.</p>`;

/** The widget tag of a report, its attributes pointing at the share's own data endpoints. */
function widget(report: ShareReport, base: string, inner: string, v: DashboardView): string {
  const a = `api-base="${base}"`;
  const c = v.compare ? ` compare="${escapeHtml(v.compare)}"` : "";
  switch (report) {
    case "summary":
      return `<svc-summary id="w-summary" ${a} days="30">${inner}</svc-summary>`;
    case "timeseries":
      return `<svc-timeseries id="w-timeseries" ${a} days="30">${inner || NO_SCRIPT}</svc-timeseries>`;
    case "geo":
    case "devices":
    case "referrers":
    case "hourly":
      return `<svc-breakdown id="w-${report}" ${a} dimension="${report}" days="30">${inner || NO_SCRIPT}</svc-breakdown>`;
    case "link_stats":
      return `<svc-link-stats id="w-link-stats" ${a} link-id="shared">${inner}</svc-link-stats>`;
    case "funnel":
      return `<svc-funnel id="w-funnel" ${a} link-id="shared" steps="${escapeHtml(v.funnelSteps.join(","))}" period="30d">${inner || NO_SCRIPT}</svc-funnel>`;
    case "conversions":
      return `<svc-conversions id="w-conversions" ${a} period="30d"${c}>${inner}</svc-conversions>`;
    case "paths":
      return `<svc-paths id="w-paths" ${a} link-id="shared" start="page_view" period="30d"${c}>${inner || NO_SCRIPT}</svc-paths>`;
    case "retention":
      return `<svc-retention id="w-retention" ${a} link-id="shared" weeks="8"${c}>${inner || NO_SCRIPT}</svc-retention>`;
    case "realtime":
      // Every viewer's refreshes draw on the share's one hourly budget: once a minute, not every 10 s.
      return `<svc-realtime id="w-realtime" ${a} refresh="60">${inner || NO_SCRIPT}</svc-realtime>`;
    case "attribution":
      return `<svc-attribution id="w-attribution" ${a} period="30d" controls>${inner || NO_SCRIPT}</svc-attribution>`;
  }
}

const figures = (heading: string, list: Figure[]) =>
  `<section><h2>${escapeHtml(heading)}</h2><dl class="headline">${list.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl></section>`;

const HEADINGS: Partial<Record<ShareReport, string>> = {
  summary: "Clicks, last 30 days",
  link_stats: "Link",
  funnel: "Funnel, last 30 days",
  conversions: "Conversions, last 30 days",
};

export function dashboardPage(v: DashboardView): string {
  const base = `/share/${escapeHtml(v.token)}/data`;
  const widgets = v.reports.map((r) => {
    const h = v.headlines[r];
    return widget(r, base, h ? figures(HEADINGS[r] ?? r, h) : "", v);
  });
  return htmlDocument(
    v.title,
    `<header><h1>${escapeHtml(v.title)}</h1><p class="muted">${escapeHtml(v.subject)} · read-only</p></header>
<main>${widgets.join("\n")}</main><script type="module" src="/widgets.js"></script>`,
  );
}
