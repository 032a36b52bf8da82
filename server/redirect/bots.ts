// Who gets a preview page instead of a redirect: link unfurlers and crawlers (server/visitors/bots.ts), but not
// HTTP clients and scripts (curl, wget, libraries, a missing user agent), which want the redirect.
// Memoized per user agent: the fast path asks on every request.
import { classifyBot } from "../visitors/bots";

const memo = new Map<string, boolean>();

export function wantsPreview(ua: string): boolean {
  let answer = memo.get(ua);
  if (answer === undefined) {
    const kind = classifyBot(ua).bot_kind;
    answer = kind === "preview" || kind === "crawler";
    if (memo.size >= 10_000) memo.clear();
    memo.set(ua, answer);
  }
  return answer;
}
