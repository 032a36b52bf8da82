// The HTTP side of the stand-in: /ping, and queries on / answered as a real server answers them (the
// X-ClickHouse-* headers, the whole result or the exception text with its status and code header).
// Every query waits for its end before answering, as with wait_end_of_query=1.
import { Engine, type EngineResult } from "./engine";
import { ClickhouseException } from "./errors";
import { compress } from "./compression";
import { parseRequest, type Credentials, type ParsedRequest } from "./request";

export interface ClickhouseHttpOptions {
  port: number;
  hostname?: string;
  /** chDB's data directory. */
  path: string;
  credentials?: Credentials;
  /** Settings every request gets unless it sets them itself, like a server's default profile. */
  profile?: Record<string, string>;
}

export interface ClickhouseHttpServer {
  url: string;
  engine: Engine;
  /** Stops listening, lets queued queries finish, closes chDB. */
  stop(): Promise<void>;
}

const KEEP_ALIVE_SECONDS = 10;

export function startClickhouseHttp(opts: ClickhouseHttpOptions): ClickhouseHttpServer {
  const engine = new Engine(opts.path);
  const credentials = opts.credentials ?? { user: "default", password: "" };
  const common = {
    "X-ClickHouse-Server-Display-Name": "svc-clickhouse-http",
    "X-ClickHouse-Timezone": engine.timezone,
    "Keep-Alive": `timeout=${KEEP_ALIVE_SECONDS}`,
  };
  const server = Bun.serve({
    port: opts.port,
    hostname: opts.hostname ?? "127.0.0.1",
    // Queries wait in the queue without sending a byte; a real server keeps such requests open too.
    idleTimeout: 0,
    maxRequestBodySize: 1 << 30,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/ping" || (url.pathname === "/" && req.method === "GET" && !url.searchParams.has("query")))
        return new Response("Ok.\n", { headers: { ...common, "Content-Type": "text/html; charset=UTF-8" } });
      if (url.pathname !== "/")
        return new Response(`There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\n`, {
          status: 404,
          headers: { ...common, "Content-Type": "text/plain; charset=UTF-8" },
        });
      let parsed: ParsedRequest | undefined;
      try {
        parsed = await parseRequest(req, url, credentials, opts.profile ?? {});
        return answer(parsed, await engine.run(parsed.engine));
      } catch (err) {
        const e = err instanceof ClickhouseException ? err : ClickhouseException.fromEngine(err);
        return failure(e, parsed, url);
      }
    },
  });

  function answer(p: ParsedRequest, r: EngineResult): Response {
    const body = p.responseCodec ? compress(p.responseCodec, r.bytes) : r.bytes;
    return new Response(body as BodyInit, {
      headers: {
        ...common,
        "Content-Type": contentType(p.outputFormat),
        "X-ClickHouse-Query-Id": p.queryId,
        "X-ClickHouse-Format": p.outputFormat,
        "X-ClickHouse-Summary": JSON.stringify(summary(r)),
        ...(p.responseCodec ? { "Content-Encoding": p.responseCodec } : {}),
      },
    });
  }

  function failure(e: ClickhouseException, p: ParsedRequest | undefined, url: URL): Response {
    const text = Buffer.from(e.body(engine.version));
    return new Response((p?.responseCodec ? compress(p.responseCodec, text) : text) as BodyInit, {
      status: e.status,
      headers: {
        ...common,
        "Content-Type": "text/plain; charset=UTF-8",
        "X-ClickHouse-Query-Id": p?.queryId ?? url.searchParams.get("query_id") ?? crypto.randomUUID(),
        "X-ClickHouse-Exception-Code": String(e.code),
        ...(p?.responseCodec ? { "Content-Encoding": p.responseCodec } : {}),
      },
    });
  }

  return {
    url: `http://${server.hostname}:${server.port}`,
    engine,
    async stop() {
      const drained = server.stop(); // no new connections; the requests in flight go on
      await engine.idle();
      // Their answers get a moment to leave; idle keep-alive connections would hold `drained` open for good.
      await Promise.race([drained, Bun.sleep(1_000)]);
      await server.stop(true);
      engine.close();
    },
  };
}

function summary(r: EngineResult) {
  const s = (n: number) => String(n);
  return {
    read_rows: s(r.readRows),
    read_bytes: s(r.readBytes),
    written_rows: s(r.writtenRows),
    written_bytes: s(r.writtenBytes),
    total_rows_to_read: s(r.readRows),
    result_rows: s(r.writtenRows ? r.writtenRows : r.readRows),
    result_bytes: s(r.writtenRows ? r.writtenBytes : r.bytes.length),
    elapsed_ns: s(Math.round(r.elapsedSeconds * 1e9)),
  };
}

function contentType(format: string): string {
  if (/^(TabSeparated|TSV)/.test(format)) return "text/tab-separated-values; charset=UTF-8";
  if (format.startsWith("CSV")) return `text/csv; charset=UTF-8; header=${format === "CSV" ? "absent" : "present"}`;
  if (/^JSON.*EachRow/.test(format)) return "application/x-ndjson; charset=UTF-8";
  if (format.startsWith("JSON")) return "application/json; charset=UTF-8";
  if (/^(RowBinary|Native|Parquet|Arrow|ORC|Avro|Protobuf|MsgPack|CapnProto|BSONEachRow)/.test(format)) return "application/octet-stream";
  return "text/plain; charset=UTF-8";
}
