// What targeting rules look at, read from a redirect's request only when a rule needs it: country
// (trusted proxy header, else the GeoIP database), device and OS (the click analytics' parser, so a
// rule and the reports agree), the preferred Accept-Language, the short URL's query.
import Negotiator from "negotiator";
import { createGeoLocator, normalizeCountry, type GeoLocator } from "../visitors/geo";
import { parseUserAgent, type ParsedAgent } from "../visitors/user-agent";
import { clientAddress } from "../http/request-context";
import type { OS_FAMILIES } from "../links/model";

export const GEO_HEADERS = ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country"];

type Server = Parameters<typeof clientAddress>[1];

/** The trusted proxy's country header as it came (normalized later), when TRUST_PROXY is set. */
export function proxyCountryHeader(h: Headers): string | undefined {
  for (const name of GEO_HEADERS) {
    const v = h.get(name);
    if (v) return v;
  }
  return undefined;
}

const locators = new Map<string, GeoLocator>();
const locatorFor = (cityDb?: string) => {
  let l = locators.get(cityDb ?? "");
  if (!l) locators.set(cityDb ?? "", (l = createGeoLocator({ cityDbPath: cityDb })));
  return l;
};

export function requestCountry(request: Request, server: Server, cfg: { trustProxy: boolean; geoipCityDb?: string }): string {
  if (cfg.trustProxy) {
    const fromProxy = normalizeCountry(proxyCountryHeader(request.headers));
    if (fromProxy) return fromProxy;
  }
  return locatorFor(cfg.geoipCityDb)(clientAddress(request, server, cfg.trustProxy)).country_code;
}

export function requestAgent(request: Request, ua: string): ParsedAgent {
  const h = request.headers;
  return parseUserAgent(ua, { mobile: h.get("sec-ch-ua-mobile") ?? undefined, platform: h.get("sec-ch-ua-platform") ?? undefined });
}

type OsFamily = (typeof OS_FAMILIES)[number];
const LINUX = /linux|ubuntu|debian|fedora|mint|arch|gentoo|centos|red ?hat|suse|manjaro|kubuntu|xubuntu|slackware|mandriva/;

const families = new Map<string, OsFamily | "">();

/** ua-parser-js' OS name as one of the rules' families ("" when none fits). */
export function osFamily(os: string): OsFamily | "" {
  let family = families.get(os);
  if (family === undefined) {
    family = familyOf(os.toLowerCase());
    if (families.size >= 1_000) families.clear();
    families.set(os, family);
  }
  return family;
}

function familyOf(name: string): OsFamily | "" {
  if (name === "ios" || name === "ipados") return "ios";
  if (name === "android" || name === "harmonyos") return "android";
  if (name.startsWith("windows")) return "windows";
  if (name === "macos" || name === "mac os") return "macos";
  if (name === "chrome os" || name === "chromium os" || name === "chromeos") return "chromeos";
  if (LINUX.test(name)) return "linux";
  return "";
}

const languageMemo = new Map<string, string>();

/** The primary subtag of the visitor's most preferred language (quality values honoured, q=0 and * ignored). */
export function preferredLanguage(acceptLanguage: string): string {
  let lang = languageMemo.get(acceptLanguage);
  if (lang === undefined) {
    const preferred = new Negotiator({ headers: { "accept-language": acceptLanguage } }).languages().find((l) => l !== "*");
    lang = preferred ? preferred.split("-")[0].toLowerCase() : "";
    if (languageMemo.size >= 10_000) languageMemo.clear();
    languageMemo.set(acceptLanguage, lang);
  }
  return lang;
}
