// Serving the app on Bun.serve: the redirect fast path first, then Elysia for everything else.
import type { Runtime } from "../runtime";
import { createFastRedirect } from "../redirect/fast-path";

export function serveApp(runtime: Runtime, opts: { port: number; hostname: string }) {
  const fast = createFastRedirect(runtime.deps);
  const app = runtime.app;
  const server = Bun.serve({
    port: opts.port,
    hostname: opts.hostname,
    maxRequestBodySize: 16 * 1024 * 1024,
    fetch: (request, srv) => fast(request, srv) ?? app.fetch(request),
  });
  // Elysia hands `server` to handlers (client addresses) from here.
  (app as unknown as { server: typeof server }).server = server;
  return server;
}
