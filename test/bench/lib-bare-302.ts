// The baseline of the redirect benchmark: a bare Bun.serve that answers every request with a 302.
const port = Number(process.argv[2] ?? 3999);
Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch: () =>
    new Response(null, { status: 302, headers: { location: "https://example.com/landing", "cache-control": "private, max-age=0" } }),
});
console.log("ready");
