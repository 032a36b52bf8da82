// Title, description and image of a destination page, read with HTMLRewriter.
// 2 s budget, 1 MB cap, at most 3 redirects, SSRF guard on every hop; failures yield empty metadata.
// The page is someone else's: its text is made storable, and an image that is not an http(s) URL
// (javascript:, data:) is dropped, as the API refuses it.
import { guardedFetch, readCapped, type OutboundPolicy } from "../net/outbound";
import { storableText } from "../storage/text";
import { validateDestination } from "./urls";

export interface PageMetadata {
  title?: string;
  description?: string;
  image?: string;
}

const TIMEOUT_MS = 2_000;
const MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;

export async function fetchPageMetadata(url: string, outbound: OutboundPolicy): Promise<PageMetadata> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    let target = new URL(url);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await guardedFetch(
        target,
        { redirect: "manual", signal, headers: { accept: "text/html", "user-agent": "svc-link-preview/1.0" } },
        outbound,
      );
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        target = new URL(location, target);
        continue;
      }
      if (!res.ok || !(res.headers.get("content-type") ?? "").includes("html")) {
        await res.body?.cancel();
        return {};
      }
      return extractMetadata(await readCapped(res, MAX_BYTES), target);
    }
  } catch {
    // A slow or failing site never fails link creation.
  }
  return {};
}

export async function extractMetadata(html: Uint8Array, base: URL): Promise<PageMetadata> {
  let title = "";
  const meta: Record<string, string> = {};
  await new HTMLRewriter()
    .on("title", {
      text(t) {
        if (title.length < 1000) title += t.text;
      },
    })
    .on("meta", {
      element(el) {
        const key = (el.getAttribute("property") ?? el.getAttribute("name") ?? "").toLowerCase();
        const content = el.getAttribute("content");
        if (key && content && !(key in meta)) meta[key] = content;
      },
    })
    .transform(new Response(html as BodyInit))
    .arrayBuffer();
  const clean = (s?: string) =>
    s ? storableText(decodeEntities(s)).replace(/\s+/g, " ").trim().slice(0, 500).toWellFormed() || undefined : undefined;
  return {
    title: clean(meta["og:title"]) ?? clean(title),
    description: clean(meta["og:description"]) ?? clean(meta["description"]) ?? clean(meta["twitter:description"]),
    image: imageUrl(meta["og:image"] ?? meta["twitter:image"], base),
  };
}

/** The image's absolute URL when the API would accept it as `og_image`, else nothing. */
function imageUrl(raw: string | undefined, base: URL): string | undefined {
  if (!raw) return undefined;
  try {
    return validateDestination(storableText(new URL(raw.trim(), base).toString()), "og_image");
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'", nbsp: " " };
const decodeEntities = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
