// Real HTTPS webhook receivers on loopback (self-signed certificate made with openssl), and
// receiver-side verification of both signatures, written as a customer would write them.
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv } from "../helpers/stores";

export interface Received {
  headers: Headers;
  body: string;
  json: any;
  at: number;
}
type Responder = (req: Received, index: number) => Response | Promise<Response>;

let cert: { cert: string; key: string } | undefined;
export function selfSignedCert() {
  cert ??= makeCertificate("localhost");
  return cert;
}

/** A self-signed certificate for `name` (subject and subjectAltName), made with openssl. */
export function makeCertificate(name: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "svc-webhook-cert-"));
  const out = Bun.spawnSync(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      `/CN=${name}`,
      "-addext",
      `subjectAltName=DNS:${name}`,
      "-days",
      "1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stderr: "pipe", env: childEnv({}) },
  );
  if (out.exitCode !== 0) throw new Error(`openssl failed: ${out.stderr.toString()}`);
  return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
}

export interface Receiver {
  url: string;
  received: Received[];
  respond: Responder;
  waitFor(predicate: (all: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  stop(): void;
}

export function startReceiver(respond: Responder = () => new Response("ok")): Receiver {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: "",
    received,
    respond,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met in ${timeoutMs} ms (${received.length} received)`);
        await Bun.sleep(20);
      }
      return received;
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: selfSignedCert(),
    async fetch(req) {
      const body = await req.text();
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const entry = { headers: req.headers, body, json, at: Date.now() };
      received.push(entry);
      return receiver.respond(entry, received.length - 1);
    },
  });
  receiver.url = `https://127.0.0.1:${server.port}/hook`;
  return receiver;
}

/** The documented check: hex HMAC-SHA256 of the raw body, keyed with the secret as returned at creation. */
export function verifySvcSignature(secret: string, r: Received): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(r.body).digest("hex")}`);
  const given = Buffer.from(r.headers.get("x-svc-signature") ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.body`. */
export function verifyStandardSignature(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${r.headers.get("webhook-id")}.${r.headers.get("webhook-timestamp")}.${r.body}`;
  const expected = `v1,${createHmac("sha256", key).update(signed).digest("base64")}`;
  return (r.headers.get("webhook-signature") ?? "").split(" ").includes(expected);
}
