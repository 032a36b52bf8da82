// The baseline of the ingest benchmark: a bare Bun.serve that reads each POST's body and answers 202.
Bun.serve({
  port: Number(process.argv[2] ?? 3998),
  hostname: "127.0.0.1",
  fetch: async (req) => {
    await req.arrayBuffer();
    return new Response(null, { status: 202 });
  },
});
console.log("ready");
