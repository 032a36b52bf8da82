// A stand-in for a ClickHouse server in tests: the part of ClickHouse's HTTP interface that
// @clickhouse/client uses, with every statement run by chDB (a real ClickHouse engine) in this process,
// so several service instances can share one ClickHouse. Production uses ClickHouse servers.
//
//   bun test/support/clickhouse-http.ts --port 8123 --path /tmp/ch [--host 127.0.0.1] [--user u --password p]
//                                       [--setting name=value]…   (a default profile, e.g. an older server's defaults)
//
// Prints its URL on stdout once it listens (port 0: any free port); SIGTERM or SIGINT stops it after
// the queries already received have finished.
import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { startClickhouseHttp } from "./clickhouse-http/server";

export { startClickhouseHttp } from "./clickhouse-http/server";

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8123" },
      host: { type: "string", default: "127.0.0.1" },
      path: { type: "string" },
      user: { type: "string", default: "default" },
      password: { type: "string", default: "" },
      setting: { type: "string", multiple: true, default: [] },
    },
  });
  if (!values.path) {
    console.error(
      "usage: bun test/support/clickhouse-http.ts --port <port> --path <dir> [--host <addr>] [--user <name> --password <secret>] [--setting name=value]...",
    );
    process.exit(2);
  }
  mkdirSync(values.path, { recursive: true });
  const server = startClickhouseHttp({
    port: Number(values.port),
    hostname: values.host,
    path: values.path,
    credentials: { user: values.user!, password: values.password! },
    profile: Object.fromEntries(values.setting!.map((s) => [s.slice(0, s.indexOf("=")), s.slice(s.indexOf("=") + 1)])),
  });
  console.log(server.url);
  const stop = () => server.stop().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
