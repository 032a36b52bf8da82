// HTTP/1.1 over a plain TCP socket, byte for byte: what fetch() would refuse or fix for us (a Host
// header that is not a host, invalid UTF-8 in the path, a body that disagrees with its content type).
export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** The socket closed or timed out before a status line arrived. */
  noAnswer: boolean;
}

export interface RawRequest {
  method: string;
  /** Sent as it is: may hold any byte (latin1 string). */
  target: string;
  headers: [string, string][];
  body?: Uint8Array;
}

/** Serialises a request; header names and values are sent as latin1 bytes, unchanged. */
export function encodeRequest(req: RawRequest): Uint8Array {
  const lines = [`${req.method} ${req.target} HTTP/1.1`, ...req.headers.map(([k, v]) => `${k}: ${v}`), "Connection: close"];
  if (req.body && !req.headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k)))
    lines.push(`Content-Length: ${req.body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  return req.body ? Buffer.concat([head, req.body]) : head;
}

export function sendRaw(port: number, bytes: Uint8Array, timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, timeoutMs);
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write(bytes);
          socket.flush();
        },
        data(_socket, data) {
          chunks.push(Buffer.from(data));
        },
        close: finish,
        error: finish,
        connectError: finish,
      },
    }).catch(finish);
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd < 0) return { status: 0, headers: new Map(), body: "", noAnswer: true };
  const [statusLine, ...headerLines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const i = line.indexOf(":");
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  let body = raw.subarray(headEnd + 4);
  if (headers.get("transfer-encoding")?.includes("chunked")) body = dechunk(body);
  return { status, headers, body: body.toString("utf8"), noAnswer: false };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!size) break;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}
