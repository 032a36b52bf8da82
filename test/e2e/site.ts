// A customer's site for the end-to-end tests: a second Bun.serve on another loopback port, so what
// its pages embed from our server (t.js, widgets.js) talks to our API cross-origin.

export interface Site {
  origin: string;
  stop(): Promise<void>;
}

export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Serves `pages` (path → HTML), 204 for /favicon.ico, 404 for anything else. */
export function startSite(pages: Record<string, string>): Site {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path in pages) return new Response(pages[path], { headers: { "content-type": "text/html; charset=utf-8" } });
      if (path === "/favicon.ico") return new Response(null, { status: 204 });
      return new Response("not found", { status: 404 });
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    stop: async () => {
      await server.stop(true);
    },
  };
}

function trackedPage(title: string, apiOrigin: string, key: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<script defer src="${esc(apiOrigin)}/t.js" data-key="${esc(key)}"></script>
<style>body{margin:0;font:16px system-ui}main{height:4000px;padding:16px;background:linear-gradient(#fff,#dbeafe)}</style>
</head><body>${body}</body></html>`;
}

/** A shop that embeds our /t.js: /landing (4000 px tall, linking to /page2) and /page2. */
export function startTrackedSite(apiOrigin: string, key: string): Site {
  return startSite({
    "/landing": trackedPage(
      "Spring sale",
      apiOrigin,
      key,
      `<main><h1>Spring sale</h1><p><a id="to-page2" href="/page2">Sign up</a></p></main>`,
    ),
    "/page2": trackedPage("Sign up", apiOrigin, key, `<main><h1>Sign up</h1></main>`),
  });
}

/** Calls `probe` until it returns a value (not null), or fails after `ms` naming what it waited for. */
export async function pollUntil<T>(probe: () => Promise<T | null>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await Bun.sleep(250);
  }
}
