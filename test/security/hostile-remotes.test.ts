// Hostile webhook receivers and destination sites against a real server process: bodies with NUL
// bytes and invalid encodings, endless bodies, slow trickles, answers that never come, broken HTTP,
// redirects to private addresses. Every attempt ends in bounded time, is recorded once, stores only
// storable text, and the server keeps answering.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServerProcess, type ServerProcess } from "./server-process";

const P = "/public-api/v1";

/** A site on loopback whose answer per path is set by the test; counts what it was asked. */
function hostileSite() {
  const handlers = new Map<string, (req: Request) => Response | Promise<Response>>();
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      return (handlers.get(path) ?? (() => new Response("nothing here", { status: 404 })))(req);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, handlers, hits, stop: () => server.stop(true) };
}

/** A body that never ends: `chunk` every `everyMs` (0: as fast as the reader takes it). */
const endless = (chunk: string, everyMs: number) =>
  new ReadableStream({
    async pull(controller) {
      if (everyMs) await Bun.sleep(everyMs);
      controller.enqueue(new TextEncoder().encode(chunk));
    },
  });

/** An answer that never comes (until the site stops). */
const never = () => new Promise<Response>(() => {});

/** A raw TCP server writing `bytes` to whoever connects, then closing. */
function rawServer(bytes: string | Uint8Array) {
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        socket.write(bytes);
        socket.end();
      },
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

const timed = async <T>(work: Promise<T>) => {
  const started = performance.now();
  const value = await work;
  return { value, seconds: (performance.now() - started) / 1000 };
};

describe("with WEBHOOK_ALLOW_INSECURE (loopback receivers and sites reachable)", () => {
  let s: ServerProcess;
  let key: string;
  const site = hostileSite();
  beforeAll(async () => {
    s = await startServerProcess({ WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "100,100" });
    ({ key } = await s.account("scale"));
  });
  afterAll(async () => {
    site.stop();
    expect(s.unexpectedErrors()).toEqual([]);
    await s.stop();
  });

  const api = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(`${s.url}${P}${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** POST /webhooks/{id}/test against a receiver at `url`: the delivery after its one attempt. */
  const testDelivery = async (url: string) => {
    const hook = await api("POST", "/webhooks", { url, events: ["link.created"] });
    expect(hook.status).toBe(201);
    const { value, seconds } = await timed(api("POST", `/webhooks/${hook.body.data.id}/test`));
    expect(value.status).toBe(200);
    expect(await s.healthy()).toBe(true);
    await api("DELETE", `/webhooks/${hook.body.data.id}`);
    return { delivery: value.body.data, seconds };
  };

  describe("webhook receivers", () => {
    test("200 with NUL bytes, and 200 with invalid UTF-8: delivered, the answer stored as valid text", async () => {
      site.handlers.set("/nul", () => new Response("ok\u0000\u0000", { status: 200 }));
      site.handlers.set(
        "/latin",
        () => new Response(new Uint8Array([0x6f, 0x6b, 0xff, 0xfe, 0xed, 0xa0, 0x80, 0xc3, 0x65, 0x6e, 0x64]), { status: 200 }),
      );
      const nul = await testDelivery(`${site.url}/nul`);
      expect(nul.delivery).toMatchObject({ status: "delivered", attempt_number: 1, response_body: "ok\uFFFD\uFFFD" });
      const latin = await testDelivery(`${site.url}/latin`);
      expect(latin.delivery.status).toBe("delivered");
      expect(latin.delivery.response_body).toStartWith("ok\uFFFD");
      expect(latin.delivery.response_body).toEndWith("\uFFFDend");
      expect(latin.delivery.response_body.isWellFormed()).toBe(true);
    });

    test("an endless body: delivered at once with the first 1 KB kept", async () => {
      site.handlers.set("/endless", () => new Response(endless("x".repeat(4096), 0), { status: 200 }));
      const { delivery, seconds } = await testDelivery(`${site.url}/endless`);
      expect(delivery).toMatchObject({ status: "delivered", http_status: 200 });
      expect(delivery.response_body.length).toBeLessThanOrEqual(1024);
      expect(seconds).toBeLessThan(8);
    });

    test("a slow trickle (a byte every 500 ms, forever): the attempt ends within its 10 s timeout", async () => {
      site.handlers.set("/trickle", () => new Response(endless("y", 500), { status: 200 }));
      const { delivery, seconds } = await testDelivery(`${site.url}/trickle`);
      expect(delivery.attempt_number).toBe(1);
      expect(delivery.http_status).toBe(200);
      expect(seconds).toBeLessThan(20);
    });

    test("an answer that never comes: a failed attempt after 10 s, counted, retried later", async () => {
      site.handlers.set("/never", never);
      const { delivery, seconds } = await testDelivery(`${site.url}/never`);
      expect(delivery).toMatchObject({ status: "retrying", attempt_number: 1, http_status: null });
      expect(delivery.error_message).toContain("Timed out");
      expect(seconds).toBeLessThan(20);
    });

    test("broken HTTP, a truncated body, a redirect to a private address: each one attempt, recorded", async () => {
      const garbage = rawServer("NOT HTTP AT ALL\r\n\u0000\u0000\r\n\r\n");
      const truncated = rawServer("HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\npartial\u0000");
      site.handlers.set("/internal", () => new Response("internal"));
      site.handlers.set("/redirect", () => new Response(null, { status: 302, headers: { location: `${site.url}/internal` } }));
      try {
        const broken = await testDelivery(garbage.url);
        expect(broken.delivery).toMatchObject({ status: "retrying", attempt_number: 1, http_status: null });
        expect(broken.delivery.error_message).toStartWith("Network error");
        const cut = await testDelivery(truncated.url);
        expect(cut.delivery.attempt_number).toBe(1);
        expect(cut.delivery.response_body ?? "").not.toContain("\u0000");
        const redirect = await testDelivery(`${site.url}/redirect`);
        expect(redirect.delivery).toMatchObject({ status: "retrying", http_status: 302 });
        expect(site.hits.filter((h) => h === "/internal")).toEqual([]);
      } finally {
        garbage.stop();
        truncated.stop();
      }
    });
  });

  describe("destination sites", () => {
    const create = (path: string) => timed(api("POST", "/links", { url: `${site.url}${path}` }));
    const html = (body: BodyInit) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });

    test("a title with NUL bytes or invalid UTF-8, and a javascript: image: created, text stored as valid, image dropped", async () => {
      site.handlers.set("/nul-title", () => html('<title>A\u0000B</title><meta property="og:image" content="javascript:alert(1)">'));
      site.handlers.set("/bad-bytes", () =>
        html(new Uint8Array([...new TextEncoder().encode("<title>x"), 0xff, 0xed, 0xa0, 0x80, ...new TextEncoder().encode("</title>")])),
      );
      const nul = await create("/nul-title");
      expect(nul.value.status).toBe(201);
      expect(nul.value.body.data).toMatchObject({ title: "A\uFFFDB", og_image: null });
      const bad = await create("/bad-bytes");
      expect(bad.value.status).toBe(201);
      expect(bad.value.body.data.title.isWellFormed()).toBe(true);
      expect(bad.value.body.data.title).toStartWith("x\uFFFD");
    });

    test("an endless page, a trickle, a page that never answers, a redirect loop: created within the 2 s budget", async () => {
      site.handlers.set("/endless-page", () => html(endless("<p>more</p>", 0)));
      site.handlers.set("/trickle-page", () => html(endless("<", 200)));
      site.handlers.set("/never-page", never);
      site.handlers.set("/loop", () => new Response(null, { status: 302, headers: { location: "/loop" } }));
      site.handlers.set("/huge-title", () => html(`<title>${"t".repeat(2_000_000)}</title>`));
      for (const path of ["/endless-page", "/trickle-page", "/never-page", "/loop", "/huge-title"]) {
        const { value, seconds } = await create(path);
        expect(value.status, path).toBe(201);
        expect(value.body.data.title.length, path).toBeLessThanOrEqual(500);
        expect(seconds, path).toBeLessThan(6);
      }
      expect(site.hits.filter((h) => h === "/loop").length).toBe(4); // the first request and 3 redirects
      expect(await s.healthy()).toBe(true);
    });

    test("a gzip bomb: read up to the 1 MB cap, never inflated whole", async () => {
      const bomb = Bun.gzipSync(new TextEncoder().encode(`<title>bomb</title>${" ".repeat(64 * 1024 * 1024)}`));
      site.handlers.set("/bomb", () => new Response(bomb, { headers: { "content-type": "text/html", "content-encoding": "gzip" } }));
      const { value, seconds } = await create("/bomb");
      expect(value.status).toBe(201);
      expect(value.body.data.title).toBe("bomb");
      expect(seconds).toBeLessThan(6);
    });

    test("bulk create fills titles in the background from hostile pages, storing valid text", async () => {
      site.handlers.set("/bulk-nul", () => html("<title>bulk\u0000</title>"));
      const res = await api("POST", "/links/bulk", [{ url: `${site.url}/bulk-nul` }, { url: `${site.url}/never-page` }]);
      expect(res.status).toBe(201);
      const id = res.body.data.created[0].link.id;
      let title = "";
      for (let i = 0; i < 200 && !title; i++) {
        title = (await api("GET", `/links/${id}`)).body.data.title;
        if (!title) await Bun.sleep(50);
      }
      expect(title).toBe("bulk\uFFFD");
    });
  });
});

describe("without WEBHOOK_ALLOW_INSECURE (the guard on)", () => {
  let s: ServerProcess;
  let key: string;
  const site = hostileSite();
  beforeAll(async () => {
    s = await startServerProcess();
    ({ key } = await s.account("scale"));
  });
  afterAll(async () => {
    site.stop();
    expect(s.unexpectedErrors()).toEqual([]);
    await s.stop();
  });

  test("destinations on loopback, however spelled, are never fetched; the link is still created", async () => {
    site.handlers.set("/secret", () => new Response("<title>internal</title>", { headers: { "content-type": "text/html" } }));
    const port = new URL(site.url).port;
    for (const host of ["127.0.0.1", "localhost", "127.1", "0x7f000001", "2130706433", "[::1]", "[::ffff:127.0.0.1]", "0"]) {
      const res = await fetch(`${s.url}${P}/links`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ url: `http://${host}:${port}/secret` }),
      });
      expect(res.status, host).toBe(201);
      expect(((await res.json()) as any).data.title, host).toBe("");
    }
    expect(site.hits).toEqual([]);
  });

  test("webhook URLs on loopback are refused with 400 naming body.url", async () => {
    for (const url of ["https://127.0.0.1/h", "https://localhost/h", "https://[::1]/h", "https://0x7f000001/h"]) {
      const res = await fetch(`${s.url}${P}/webhooks`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ url, events: ["link.created"] }),
      });
      expect(res.status, url).toBe(400);
      expect(((await res.json()) as any).error.details.fields[0].field).toBe("body.url");
    }
  });
});
