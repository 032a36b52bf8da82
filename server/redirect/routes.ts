// GET/HEAD /{short_code} on BASE_URL's host and verified custom domains (the redirect hot path),
// and POST /{short_code} for password-protected links.
import { Elysia, t } from "elysia";
import { wantsPreview } from "./bots";
import type { RedirectDeps } from "./feature";
import type { CachedLink } from "../links/cache";
import { shortUrl } from "../links/urls";
import { clientAddress } from "../http/request-context";
import { recordClick, SHORT_CODE } from "./record-click";
import { fallbackRedirect, serveLink } from "./serve-link";
import type { Peer, RedirectRequest } from "./redirect-request";
import { expiredPage, notFoundPage, passwordPage, previewPage, tooManyAttemptsPage } from "./pages";

const PASSWORD_ATTEMPTS = 10;
const PASSWORD_WINDOW_SLOTS = 15; // 15 one-minute slots

const PROTECTED_PREVIEW = {
  title: "Password-protected link",
  description: "Open the link and enter its password to continue.",
  ogImage: null,
};

export function redirectRoutes(deps: RedirectDeps) {
  const defaultHost = new URL(deps.config.baseUrl).host;

  /** The link a (host, code) names, or a page that says why there is none. */
  const resolve = async (request: Request, code: string): Promise<CachedLink | Response> => {
    if (!SHORT_CODE.test(code)) return notFoundPage();
    const host = (request.headers.get("host") ?? defaultHost).toLowerCase();
    const domainId = host === defaultHost ? null : (deps.domainCache.peek(host) ?? (await deps.domainCache.resolve(host)));
    const cached = deps.linkCache.get(domainId, code);
    const link = cached instanceof Promise ? await cached : cached;
    if (!link || link.deleted || !link.isActive) return notFoundPage();
    if (link.expiresAt !== null && link.expiresAt <= Date.now()) return link.expiredUrl ? fallbackRedirect(link.expiredUrl) : expiredPage();
    return link;
  };

  const redirectRequest = (request: Request, server: Peer, link: CachedLink, search?: string): RedirectRequest => {
    const qIndex = request.url.indexOf("?");
    search ??= qIndex >= 0 ? request.url.slice(qIndex) : "";
    return { request, server, link, search, ua: request.headers.get("user-agent") ?? "", fast: false };
  };
  const redirect = (request: Request, server: Peer, link: CachedLink) => serveLink(deps, redirectRequest(request, server, link));

  const serve = async ({ request, params, server }: { request: Request; params: { code: string }; server: Peer }) => {
    const link = await resolve(request, params.code);
    if (link instanceof Response) return link;
    const ua = request.headers.get("user-agent") ?? "";
    if (wantsPreview(ua)) {
      await recordClick(deps, redirectRequest(request, server, link, "")).written;
      const url = shortUrl(deps.config.baseUrl, link.code, link.domainId ? (request.headers.get("host") ?? null) : null);
      // Behind a password nothing of the destination shows: its title, description and image may
      // have been read from the page itself.
      return link.passwordHash ? previewPage(PROTECTED_PREVIEW, url, null) : previewPage(link, url, link.originalUrl);
    }
    if (link.passwordHash) return passwordPage(link.code);
    return redirect(request, server, link);
  };

  return new Elysia()
    .get("/:code", serve, { detail: { hide: true } })
    .head("/:code", serve, { detail: { hide: true } })
    .post(
      "/:code",
      async ({ request, params, server, body }) => {
        const link = await resolve(request, params.code);
        if (link instanceof Response) return link;
        if (!link.passwordHash) return redirect(request, server, link);
        const ip = clientAddress(request, server, deps.config.trustProxy);
        const now = Date.now();
        const hit = await deps.kv.hitWindow(`pw:${ip}`, PASSWORD_ATTEMPTS, now, 60_000, PASSWORD_WINDOW_SLOTS);
        if (!hit.allowed) return tooManyAttemptsPage(Math.max(1, Math.ceil((hit.oldestMs + PASSWORD_WINDOW_SLOTS * 60_000 - now) / 1000)));
        const password = typeof body?.password === "string" ? body.password : "";
        if (!password || !(await Bun.password.verify(password, link.passwordHash)))
          return passwordPage(link.code, "Wrong password. Try again.");
        return redirect(request, server, link);
      },
      { body: t.Optional(t.Object({ password: t.Optional(t.String({ maxLength: 200 })) })), detail: { hide: true } },
    );
}
