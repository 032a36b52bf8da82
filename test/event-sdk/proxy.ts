// A loopback HTTP proxy between an app and our server, for the SDK tests: it records every ingest
// request (idempotency key, events, outcome, time) and, per request, forwards it, answers it itself
// (an overloaded or timed-out server: 408, 429, 500, 503 with Retry-After), or forwards it and then
// closes the connection without answering (the server stored the batch, the app never hears of it).
// It speaks HTTP/1.1 over node:net so that "no answer" is a closed socket, as on a real network.
import { createServer, type Server, type Socket } from "node:net";
import { skipContractFor } from "../helpers/fetch-contract";

export interface SeenRequest {
  n: number;
  key: string | null;
  events: any[];
  at: number;
  /** The status the app received, or "dropped" (connection closed without an answer). */
  outcome: number | "dropped";
  /** What the server answered when the request was forwarded (also for dropped ones). */
  serverStatus: number | null;
  retryAfter: string | null;
}

export type Action =
  | { forward: true }
  | { respond: number; headers?: Record<string, string>; body?: unknown }
  /** Forward, wait for the server's answer, run `then` (e.g. kill the server), close the connection. */
  | { dropAnswer: true; then?: () => Promise<void> | void };

export type Rule = (req: { n: number; key: string | null; events: any[] }) => Action;

export interface Proxy {
  url: string;
  requests: SeenRequest[];
  rule: Rule;
  /** Resolves when `count` requests have been answered or dropped (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

const forward: Rule = () => ({ forward: true });

export async function startProxy(target: () => string, rule: Rule = forward): Promise<Proxy> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let waiters: (() => boolean)[] = [];
  const proxy: Proxy = {
    url: "",
    requests,
    rule,
    waitFor(count, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`proxy saw ${requests.length} of ${count} requests after ${ms} ms`)), ms);
        const check = () => {
          if (requests.length >= count) {
            clearTimeout(deadline);
            resolve();
            return true;
          }
          return false;
        };
        if (!check()) waiters.push(check);
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const record = (r: SeenRequest) => {
    requests.push(r);
    waiters = waiters.filter((satisfied) => !satisfied());
  };

  const handle = async (socket: Socket, head: string, body: Buffer) => {
    const [requestLine, ...lines] = head.split("\r\n");
    const [method, path] = requestLine.split(" ");
    const headers = new Headers();
    for (const line of lines) {
      const i = line.indexOf(":");
      if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
    }
    const key = headers.get("x-idempotency-key");
    let events: any[] = [];
    try {
      events = JSON.parse(body.toString("utf8")).events ?? [];
    } catch {}
    const n = requests.length + 1;
    const action = proxy.rule({ n, key, events });
    const seen: SeenRequest = { n, key, events, at: Date.now(), outcome: 0, serverStatus: null, retryAfter: null };
    if ("respond" in action) {
      const h: Record<string, string> = { "content-type": "application/json", ...action.headers };
      seen.outcome = action.respond;
      seen.retryAfter = h["retry-after"] ?? null;
      record(seen);
      return write(
        socket,
        action.respond,
        new Headers(h),
        Buffer.from(JSON.stringify(action.body ?? { success: false, error: "injected" })),
      );
    }
    headers.delete("host");
    headers.delete("connection");
    headers.delete("content-length");
    let res: Response;
    let resBody: Buffer;
    try {
      res = await fetch(target() + path, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(body),
      });
      resBody = Buffer.from(await res.arrayBuffer());
    } catch {
      seen.outcome = "dropped"; // the server is down: the app sees a failed connection, as without a proxy
      record(seen);
      socket.destroy();
      return;
    }
    seen.serverStatus = res.status;
    seen.retryAfter = res.headers.get("retry-after");
    if ("dropAnswer" in action) {
      await action.then?.();
      seen.outcome = "dropped";
      record(seen);
      socket.destroy();
      return;
    }
    seen.outcome = res.status;
    record(seen);
    write(socket, res.status, res.headers, resBody);
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buf = Buffer.alloc(0);
    let chain = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buf.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const body = Buffer.from(buf.subarray(end + 4, end + 4 + length));
        buf = buf.subarray(end + 4 + length);
        chain = chain.then(() => handle(socket, head, body)).catch(() => void socket.destroy());
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  // It injects failures of its own, so its answers are not held to the document (our server's own are, in the tests that call it directly).
  skipContractFor(proxy.url);
  return proxy;
}

function write(socket: Socket, status: number, headers: Headers, body: Buffer): void {
  if (socket.destroyed) return;
  let head = `HTTP/1.1 ${status} X\r\n`;
  for (const [k, v] of headers) {
    if (!["content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"].includes(k)) head += `${k}: ${v}\r\n`;
  }
  head += `content-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n`;
  socket.write(Buffer.concat([Buffer.from(head, "latin1"), body]));
}
