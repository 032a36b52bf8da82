// The outbound guard connects to the address that passed its check. Loopback addresses stand in for
// the Internet: 127.0.0.2 plays a public site (the test's policy counts only 127.0.0.1 as private) and
// 127.0.0.1 an internal service on the same port that must never be reached. Names are answered by the
// test's resolver, so "DNS" can change its answer between the check and the connection.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { guardedFetch, OutboundRefused, type OutboundPolicy } from "../../server/net/outbound";
import { createTestApp, type TestApp } from "../helpers/app";
import { isPrivateAddress } from "../../server/http/ip-allowlist";
import { makeCertificate } from "../webhooks/receiver";

const PUBLIC = "127.0.0.2";
const INTERNAL = "127.0.0.1";
const PLAYS_PUBLIC = new Set([PUBLIC, "127.0.0.3"]);
const isPrivate = (address: string) => !PLAYS_PUBLIC.has(address) && isPrivateAddress(address);

interface Site {
  port: number;
  seen: { host: string | null; path: string }[];
  stop(): void;
}

function serve(hostname: string, port: number, answer: (req: Request) => Response, tls?: Bun.TLSOptions | Bun.TLSOptions[]): Site {
  const seen: Site["seen"] = [];
  const server = Bun.serve({
    hostname,
    port,
    tls,
    fetch(req) {
      seen.push({ host: req.headers.get("host"), path: new URL(req.url).pathname });
      return answer(req);
    },
  });
  return { port: server.port as number, seen, stop: () => server.stop(true) };
}

/** A public site and an internal service on the same port of two loopback addresses. */
function pair(publicAnswer: (req: Request) => Response, tls?: Bun.TLSOptions | Bun.TLSOptions[]) {
  for (let attempt = 0; ; attempt++) {
    const site = serve(PUBLIC, 0, publicAnswer, tls);
    try {
      const internal = serve(INTERNAL, site.port, () => new Response("internal secrets"), tls);
      return { site, internal, stop: () => (site.stop(), internal.stop()) };
    } catch (err) {
      site.stop();
      if (attempt > 10) throw err;
    }
  }
}

/** A resolver that answers `answers[i]` to its i-th lookup (the last one after that), and counts. */
function rebinding(...answers: string[][]) {
  const resolver = {
    calls: 0,
    lookup: async (_host: string) => answers[Math.min(resolver.calls++, answers.length - 1)],
  };
  return resolver;
}

let certs: { good: { cert: string; key: string }; other: { cert: string; key: string } };
beforeAll(() => {
  certs = { good: makeCertificate("rebind.test"), other: makeCertificate("other.test") };
});

describe("guardedFetch", () => {
  test("connects to the address that passed the check, not to a second lookup's (DNS rebinding)", async () => {
    const { site, internal, stop } = pair(() => new Response("public page"));
    try {
      const dns = rebinding([PUBLIC], [INTERNAL]);
      const policy: OutboundPolicy = { allowPrivate: false, lookup: dns.lookup, isPrivate };
      const res = await guardedFetch(new URL(`http://rebind.test:${site.port}/page?q=1`), {}, policy);
      expect(await res.text()).toBe("public page");
      expect(dns.calls).toBe(1);
      expect(site.seen).toEqual([{ host: `rebind.test:${site.port}`, path: "/page" }]);
      expect(internal.seen).toEqual([]);
    } finally {
      stop();
    }
  });

  test("a name with any private address is refused before anything is sent", async () => {
    const { site, internal, stop } = pair(() => new Response("public page"));
    try {
      for (const answer of [[INTERNAL], [PUBLIC, INTERNAL]]) {
        const policy: OutboundPolicy = { allowPrivate: false, lookup: rebinding(answer).lookup, isPrivate };
        await expect(guardedFetch(new URL(`http://rebind.test:${site.port}/`), {}, policy)).rejects.toBeInstanceOf(OutboundRefused);
      }
      await expect(guardedFetch(new URL("file:///etc/passwd"), {}, { allowPrivate: true })).rejects.toBeInstanceOf(OutboundRefused);
      expect(site.seen).toEqual([]);
      expect(internal.seen).toEqual([]);
    } finally {
      stop();
    }
  });

  test("when an address refuses the connection, the next checked address is tried", async () => {
    const { site, stop } = pair(() => new Response("public page"));
    try {
      // Nothing listens on 127.0.0.3 at that port.
      const policy: OutboundPolicy = { allowPrivate: false, lookup: rebinding(["127.0.0.3", PUBLIC]).lookup, isPrivate };
      expect(await (await guardedFetch(new URL(`http://rebind.test:${site.port}/`), {}, policy)).text()).toBe("public page");
    } finally {
      stop();
    }
  });

  test("https: the TLS server name and the certificate check keep the host name", async () => {
    // The default certificate is for another name: only an SNI of rebind.test gets the right one.
    const tls = [
      { ...certs.other, serverName: "other.test" },
      { ...certs.good, serverName: "rebind.test" },
    ];
    const { site, stop } = pair(() => new Response("tls page"), tls);
    try {
      const policy: OutboundPolicy = { allowPrivate: false, lookup: rebinding([PUBLIC]).lookup, isPrivate };
      const ok = await guardedFetch(new URL(`https://rebind.test:${site.port}/`), { tls: { ca: certs.good.cert } }, policy);
      expect(await ok.text()).toBe("tls page");
      expect(site.seen[0].host).toBe(`rebind.test:${site.port}`);
      // A certificate that does not name the host is still refused.
      const wrongName: OutboundPolicy = { allowPrivate: false, lookup: rebinding([PUBLIC]).lookup, isPrivate };
      await expect(
        guardedFetch(new URL(`https://other.test:${site.port}/`), { tls: { ca: certs.good.cert } }, wrongName),
      ).rejects.toThrow();
    } finally {
      stop();
    }
  });
});

describe("destination metadata through the app", () => {
  let t: TestApp;
  let key: string;
  const dns = new Map<string, string[][]>();
  const calls = new Map<string, number>();
  beforeAll(async () => {
    t = await createTestApp(
      {},
      {},
      {
        outbound: {
          isPrivate,
          lookup: async (host) => {
            const n = calls.get(host) ?? 0;
            calls.set(host, n + 1);
            const answers = dns.get(host) ?? [];
            if (!answers.length) throw new Error("NXDOMAIN");
            return answers[Math.min(n, answers.length - 1)];
          },
        },
      },
    );
    ({ key } = await t.createAccount({ tier: "scale" }));
  });
  afterAll(() => t.close());

  const create = (url: string) => t.call("/public-api/v1/links", { method: "POST", key, json: { url } });
  const page = (title: string) => () =>
    new Response(`<html><head><title>${title}</title></head></html>`, { headers: { "content-type": "text/html" } });

  test("a page on a public name is read; a rebinding name is read from the address that was checked", async () => {
    const { site, internal, stop } = pair(page("Public title"));
    try {
      dns.set("shop.test", [[PUBLIC]]);
      dns.set("rebind.test", [[PUBLIC], [INTERNAL]]);
      expect((await create(`http://shop.test:${site.port}/`)).body.data.title).toBe("Public title");
      expect((await create(`http://rebind.test:${site.port}/`)).body.data.title).toBe("Public title");
      expect(calls.get("rebind.test")).toBe(1);
      expect(internal.seen).toEqual([]);
    } finally {
      stop();
    }
  });

  test("a public page redirecting to a private address, or to a name of one: the hop is refused, the link is still created", async () => {
    dns.set("internal.test", [[INTERNAL]]);
    let target = "";
    const { site, internal, stop } = pair((req) =>
      new URL(req.url).pathname === "/go" ? Response.redirect(target, 302) : new Response("nothing"),
    );
    try {
      dns.set("hop.test", [[PUBLIC]]);
      for (const to of [`http://${INTERNAL}:${site.port}/admin`, `http://internal.test:${site.port}/admin`, `http://[::1]:${site.port}/`]) {
        target = to;
        const res = await create(`http://hop.test:${site.port}/go`);
        expect(res.status).toBe(201);
        expect(res.body.data.title).toBe("");
      }
      expect(site.seen.length).toBe(3);
      expect(internal.seen).toEqual([]);
    } finally {
      stop();
    }
  });
});
