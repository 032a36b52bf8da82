// Helpers of the click analytics tests: links created through the API, clicks through real redirects
// (in-process, TRUST_PROXY so X-Forwarded-For names the visitor) or spooled with a chosen time.
import type { TestApp } from "../helpers/app";
import type { RawClick } from "../../server/ingest/clicks/record";

export const P = "/public-api/v1";
export const DAY_MS = 86_400_000;
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const today = () => isoDay(Date.now());
export const daysAgo = (n: number) => isoDay(Date.now() - n * DAY_MS);

export const UA = {
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  ipad: "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1",
  windowsChrome: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  macFirefox: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0",
  androidChrome: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  twitter: "Twitterbot/1.0",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  curl: "curl/8.4.0",
  headless: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
};

export async function createLink(
  t: TestApp,
  key: string,
  url = "https://example.com/landing",
): Promise<{ id: string; short_code: string; original_url: string }> {
  const res = await t.call(`${P}/links`, { method: "POST", key, json: { url, title: "t", description: "d" } });
  if (res.status !== 201) throw new Error(`create link failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export interface Visit {
  ip: string;
  ua: string;
  referrer?: string;
  country?: string;
  headers?: Record<string, string>;
}

/** A real redirect through the app; returns the status (302 for people, 200 preview page for bots). */
export async function visit(t: TestApp, code: string, v: Visit): Promise<number> {
  const headers: Record<string, string> = { "user-agent": v.ua, "x-forwarded-for": v.ip, ...(v.headers ?? {}) };
  if (v.referrer) headers.referer = v.referrer;
  if (v.country) headers["cf-ipcountry"] = v.country;
  const res = await t.request(`/${code}`, { headers, redirect: "manual" });
  await res.arrayBuffer();
  return res.status;
}

/** A click record as the redirect writes it, at a chosen time. */
export function rawClick(p: Partial<RawClick> & Pick<RawClick, "account_id" | "link_id">): RawClick {
  return {
    click_id: crypto.randomUUID(),
    ts: Date.now(),
    domain: "",
    ua: UA.windowsChrome,
    ip: "8.8.8.8",
    referrer: "",
    lang: "en",
    query: "",
    ...p,
  };
}

export async function spoolClicks(t: TestApp, clicks: RawClick[]): Promise<void> {
  await t.runtime.deps.streams.clicks.append(clicks);
  await t.flush();
}

export const get = (t: TestApp, key: string, path: string) => t.call(`${P}${path}`, { key });
