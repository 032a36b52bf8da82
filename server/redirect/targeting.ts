// Where a link with rules or variants sends this visitor: the first rule whose conditions all hold,
// else a weighted A/B variant (sticky through a first-party cookie on the short URL's path), else the
// link's own URL.
import type { CachedLink } from "../links/cache";
import type { CompiledRule, CompiledVariant, LinkTargeting } from "../links/cached-targeting";
import type { ParsedAgent } from "../visitors/user-agent";
import type { RedirectRequest } from "./redirect-request";
import { osFamily, preferredLanguage, requestAgent, requestCountry } from "./request-facts";

export const VARIANT_COOKIE = "svc_v";
const VARIANT_COOKIE_MAX_AGE = 90 * 86_400;

export interface Choice {
  /** The destination before UTM, query and svc_ref are merged in. */
  url: string;
  rule?: number;
  variant?: string;
  setCookie?: string;
}

/** The request (its search with the QR marker removed), and what targeting reads beside it. */
export interface TargetingContext extends Pick<RedirectRequest, "request" | "server" | "ua" | "search"> {
  config: { trustProxy: boolean; geoipCityDb?: string; baseUrl: string };
  /** Already parsed for the click limit, when the link has one. */
  agent?: ParsedAgent;
}

export function chooseDestination(link: CachedLink, t: LinkTargeting, ctx: TargetingContext): Choice {
  if (t.rules.length) {
    const rule = firstMatchingRule(t, ctx);
    if (rule) return { url: rule.url, rule: rule.number };
  }
  if (t.variants) return chooseVariant(link, t.variants, ctx);
  return { url: link.originalUrl };
}

function firstMatchingRule(t: LinkTargeting, ctx: TargetingContext): CompiledRule | undefined {
  const h = ctx.request.headers;
  // Each fact is read at most once, and only when some rule asks for it.
  let country: string | undefined;
  let agent = ctx.agent;
  let language: string | undefined;
  let query: URLSearchParams | undefined;
  for (const rule of t.rules) {
    if (rule.country) {
      country ??= requestCountry(ctx.request, ctx.server, ctx.config);
      if (!rule.country.has(country)) continue;
    }
    if (rule.device || rule.os) {
      agent ??= requestAgent(ctx.request, ctx.ua);
      if (rule.device && !rule.device.has(agent.device_type)) continue;
      if (rule.os && !rule.os.has(osFamily(agent.os))) continue;
    }
    if (rule.language) {
      language ??= preferredLanguage(h.get("accept-language") ?? "");
      if (!rule.language.has(language)) continue;
    }
    if (rule.query) {
      if (ctx.search.length <= 1) continue; // no query: no parameter can match
      query ??= new URLSearchParams(ctx.search);
      if (query.get(rule.query.name) !== rule.query.value) continue;
    }
    return rule;
  }
  return undefined;
}

/** The variant named by the visitor's cookie, else a weighted draw that the cookie then keeps. */
function chooseVariant(link: CachedLink, variants: CompiledVariant[], ctx: TargetingContext): Choice {
  const header = ctx.request.headers.get("cookie");
  const kept = header ? new Bun.CookieMap(header).get(VARIANT_COOKIE) : null;
  if (kept) {
    const v = variants.find((x) => x.key === kept && x.weight > 0);
    if (v) return { url: v.url, variant: v.url };
  }
  let draw = Math.random() * 100;
  let chosen = variants[variants.length - 1];
  for (const v of variants) {
    if (draw < v.weight) {
      chosen = v;
      break;
    }
    draw -= v.weight;
  }
  // Scoped to this link's path, so other links' requests do not carry it.
  chosen.setCookie ??= new Bun.Cookie(VARIANT_COOKIE, chosen.key, {
    path: `/${link.code}`,
    maxAge: VARIANT_COOKIE_MAX_AGE,
    sameSite: "lax",
    httpOnly: true,
    secure: link.domainId !== null || ctx.config.baseUrl.startsWith("https:"),
  }).serialize();
  return { url: chosen.url, variant: chosen.url, setCookie: chosen.setCookie };
}
