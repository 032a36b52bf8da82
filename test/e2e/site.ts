// A customer's site for the tracker end-to-end test: a second Bun.serve on another loopback port
// (so the tracker posts cross-origin to our server), whose pages embed our /t.js.

export interface Site { origin: string; stop(): Promise<void> }

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function html(title: string, apiOrigin: string, key: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<script defer src="${esc(apiOrigin)}/t.js" data-key="${esc(key)}"></script>
<style>body{margin:0;font:16px system-ui}main{height:4000px;padding:16px;background:linear-gradient(#fff,#dbeafe)}</style>
</head><body>${body}</body></html>`;
}

/** Serves /landing (4000 px tall, with a link to /page2), /landing/* (its SPA routes) and /page2. */
export function startSite(apiOrigin: string, key: string): Site {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const page = (title: string, body: string) =>
        new Response(html(title, apiOrigin, key, body), { headers: { "content-type": "text/html; charset=utf-8" } });
      if (path === "/landing" || path.startsWith("/landing/")) {
        return page("Spring sale", `<main><h1>Spring sale</h1><p><a id="to-page2" href="/page2">Sign up</a></p></main>`);
      }
      if (path === "/page2") return page("Sign up", `<main><h1>Sign up</h1></main>`);
      if (path === "/favicon.ico") return new Response(null, { status: 204 });
      return new Response("not found", { status: 404 });
    },
  });
  return { origin: `http://127.0.0.1:${server.port}`, stop: async () => { await server.stop(true); } };
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
