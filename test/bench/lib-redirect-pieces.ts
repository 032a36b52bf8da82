// One server per piece of a click-logging redirect, for `bun run bench redirect-costs`: each variant
// adds one piece of work to a bare 302, so the bench can price it in server CPU per request.
import { openSync, writeSync } from "node:fs";
import type { RawClick } from "../../server/ingest/clicks/record";
import { clickRecordBound, encodeClick } from "../../server/ingest/clicks/spool-record";
import { nextClickId } from "../../server/redirect/click-id";

const [variant, portArg, spoolPath] = process.argv.slice(2);
const fd = openSync(spoolPath, "a");
const IDS = { account_id: "a6b1a1f0-8a4e-4a4e-9a4e-0a4e4a4e4a4e", link_id: "a6b1a1f0-8a4e-4a4e-9a4e-0a4e4a4e4a4f" };
const redirect = () =>
  new Response(null, { status: 302, headers: { location: "https://example.com/landing", "cache-control": "private, max-age=0" } });
const clickJson = (req: Request, server: import("bun").Server<unknown>) => {
  const h = req.headers;
  return JSON.stringify({
    click_id: crypto.randomUUID(),
    ts: Date.now(),
    ...IDS,
    domain: "",
    ua: h.get("user-agent") ?? "",
    ip: server.requestIP(req)?.address ?? "",
    referrer: h.get("referer") ?? "",
    lang: h.get("accept-language") ?? "",
    query: "",
  });
};
let batch: string[] = [];
let written: Promise<void> | null = null;

// The fixed-layout binary record: ids from a counter, the few header values as length-prefixed bytes,
// written into one preallocated buffer that a turn's single write syscall sends.
const pool = Buffer.allocUnsafeSlow(4 * 1024 * 1024);
let used = 0;
let seq = 0n;
const idBase = crypto.getRandomValues(new Uint8Array(8));
const putString = (s: string) => {
  const n = pool.write(s, used + 2, "utf8");
  pool.writeUInt16LE(n, used);
  used += 2 + n;
};
const binaryRecord = (req: Request, server: import("bun").Server<unknown>) => {
  if (used > pool.length - 16 * 1024) throw new Error("record pool full");
  pool.set(idBase, used);
  pool.writeBigUInt64LE(seq++, used + 8);
  pool.writeDoubleLE(Date.now(), used + 16);
  used += 24;
  const h = req.headers;
  putString(h.get("user-agent") ?? "");
  putString(server.requestIP(req)?.address ?? "");
  putString(h.get("referer") ?? "");
  putString(h.get("accept-language") ?? "");
};

// The click as the redirect builds it (server/redirect/record-click.ts), its id from `id`.
const rawClick = (req: Request, server: import("bun").Server<unknown>, id: string): RawClick => {
  const h = req.headers;
  const c: RawClick = {
    click_id: id,
    ts: Date.now(),
    ...IDS,
    domain: "",
    ua: h.get("user-agent") ?? "",
    ip: server.requestIP(req)?.address ?? "",
    referrer: h.get("referer") ?? "",
    lang: h.get("accept-language") ?? "",
    query: "",
  };
  const mobile = h.get("sec-ch-ua-mobile");
  if (mobile) c.ch_mobile = mobile;
  const platform = h.get("sec-ch-ua-platform");
  if (platform) c.ch_platform = platform;
  return c;
};
const perTurn = (write: () => void) => {
  written ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      write();
      written = null;
      resolve();
    }),
  );
  return written;
};

Bun.serve({
  port: Number(portArg),
  hostname: "127.0.0.1",
  fetch(req, server) {
    switch (variant) {
      case "bare":
        return redirect();
      case "promise":
        return Promise.resolve(redirect());
      case "uuid":
        crypto.randomUUID();
        return redirect();
      case "requestIP":
        server.requestIP(req);
        return redirect();
      case "headers": {
        const h = req.headers;
        h.get("user-agent");
        h.get("referer");
        h.get("accept-language");
        return redirect();
      }
      case "json":
        JSON.stringify({
          click_id: IDS.link_id,
          ts: Date.now(),
          ...IDS,
          domain: "",
          ua: "Mozilla/5.0",
          ip: "127.0.0.1",
          referrer: "",
          lang: "",
          query: "",
        });
        return redirect();
      case "3 more response headers":
        return new Response(null, {
          status: 302,
          headers: {
            location: "https://example.com/landing",
            "cache-control": "private, max-age=0",
            "referrer-policy": "no-referrer-when-downgrade",
            "x-request-id": IDS.link_id,
          },
        });
      case "click record":
        clickJson(req, server);
        return redirect();
      case "write per request":
        writeSync(fd, "[" + clickJson(req, server) + "]\n");
        return redirect();
      case "write per turn": {
        batch.push("[" + clickJson(req, server) + "]\n");
        written ??= new Promise<void>((resolve) =>
          setImmediate(() => {
            writeSync(fd, batch.join(""));
            batch = [];
            written = null;
            resolve();
          }),
        );
        const response = redirect();
        return written.then(() => response);
      }
      case "spool's JSON record per turn": {
        batch.push("[" + JSON.stringify(rawClick(req, server, crypto.randomUUID())) + "]\n");
        const response = redirect();
        return perTurn(() => {
          writeSync(fd, batch.length === 1 ? batch[0] : batch.join(""));
          batch = [];
        }).then(() => response);
      }
      case "spool's binary record per turn": {
        const c = rawClick(req, server, nextClickId());
        if (used + clickRecordBound(c) > pool.length) throw new Error("record pool full");
        used = encodeClick(c, pool, used);
        const response = redirect();
        return perTurn(() => {
          writeSync(fd, pool, 0, used);
          used = 0;
        }).then(() => response);
      }
      case "binary record per turn": {
        binaryRecord(req, server);
        written ??= new Promise<void>((resolve) =>
          setImmediate(() => {
            writeSync(fd, pool, 0, used);
            used = 0;
            written = null;
            resolve();
          }),
        );
        const response = redirect();
        return written.then(() => response);
      }
    }
    throw new Error(`unknown variant ${variant}`);
  },
});
console.log("ready");
