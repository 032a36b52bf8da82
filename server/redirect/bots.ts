// Who gets a preview page instead of a redirect: link unfurlers and crawlers known to isbot, but not
// HTTP clients and scripts (curl, wget, libraries), which want the redirect. Memoized per user agent.
import { isbot } from "isbot";

const AUTOMATION =
  /curl|wget|httpie|python|go-http-client|okhttp|java\/|node-fetch|undici|axios|bun\/|libwww|postman|insomnia|headless|playwright|puppeteer|selenium/i;
const memo = new Map<string, boolean>();

export function wantsPreview(ua: string): boolean {
  if (!ua) return false; // no user agent at all: a script, not an unfurler
  let answer = memo.get(ua);
  if (answer === undefined) {
    answer = isbot(ua) && !AUTOMATION.test(ua);
    if (memo.size >= 10_000) memo.clear();
    memo.set(ua, answer);
  }
  return answer;
}
