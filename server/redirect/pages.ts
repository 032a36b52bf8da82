// The small HTML pages the redirect serves: not found, expired, password form, social preview.
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string, head = "") => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${head}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:15vh auto;padding:0 1rem;color:#222}
input,button{font:inherit;padding:.5rem;margin:.25rem 0;width:100%;box-sizing:border-box}.err{color:#b00020}</style>
</head><body>${body}</body></html>`;

const html = (status: number, body: string, extra: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...extra } });

export const notFoundPage = () =>
  html(404, page("Link not found", "<h1>Link not found</h1><p>This short link does not exist or is no longer active.</p>"));
export const expiredPage = () => html(410, page("Link expired", "<h1>Link expired</h1><p>This short link has expired.</p>"));
export const limitReachedPage = () =>
  html(410, page("Link no longer available", "<h1>Link no longer available</h1><p>This short link has reached its click limit.</p>"));
export const unavailablePage = () =>
  html(503, page("Try again shortly", "<h1>Try again shortly</h1><p>This link cannot be served right now.</p>"), { "retry-after": "5" });
export const tooManyAttemptsPage = (retryAfter: number) =>
  html(429, page("Too many attempts", `<h1>Too many attempts</h1><p>Try again in ${retryAfter} seconds.</p>`), {
    "retry-after": String(retryAfter),
  });

export const passwordPage = (code: string, error?: string) =>
  html(
    error ? 401 : 200,
    page(
      "Password required",
      `<h1>Password required</h1>
<form method="post" action="/${escapeHtml(code)}">
<label for="password">This link is protected. Enter its password:</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
${error ? `<p class="err" role="alert">${escapeHtml(error)}</p>` : ""}
<button type="submit">Continue</button></form>`,
    ),
  );

/** For link unfurlers and crawlers: Open Graph and Twitter card tags instead of a redirect. */
export function previewPage(
  link: { title: string | null; description: string | null; ogImage: string | null },
  shortUrl: string,
  destination: string | null,
) {
  const title = link.title || shortUrl;
  const tags = [
    ["og:title", title],
    ["og:description", link.description ?? ""],
    ["og:url", shortUrl],
    ["og:type", "website"],
    ["og:image", link.ogImage ?? ""],
    ["twitter:card", link.ogImage ? "summary_large_image" : "summary"],
    ["twitter:title", title],
    ["twitter:description", link.description ?? ""],
    ["twitter:image", link.ogImage ?? ""],
  ]
    .filter(([, v]) => v)
    .map(([k, v]) => `<meta ${k.startsWith("og:") ? "property" : "name"}="${k}" content="${escapeHtml(v)}">`)
    .join("\n");
  const body =
    `<h1>${escapeHtml(title)}</h1>${link.description ? `<p>${escapeHtml(link.description)}</p>` : ""}` +
    (destination ? `<p><a href="${escapeHtml(destination)}">${escapeHtml(destination)}</a></p>` : "");
  return html(
    200,
    page(title, body, `\n${tags}${link.description ? `\n<meta name="description" content="${escapeHtml(link.description)}">` : ""}`),
    { "cache-control": "public, max-age=300" },
  );
}
