// The chDB side of the stand-in: one session on the data directory and one statement at a time (chDB
// runs queries one by one anyway; a FIFO queue makes the order explicit and keeps each request's
// database, settings and parameters from leaking into another's).
import { Session } from "chdb";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ClickhouseException, fail } from "./errors";

export interface EngineRequest {
  database: string;
  /** The statement, with any inline data when `data` is absent. */
  statement: string;
  /** The bytes after `INSERT … FORMAT x`, handed to the engine as they are (binary formats too). */
  data?: Uint8Array;
  /** `param_*` values, as the text a real server binds to `{name:Type}`. */
  params: Record<string, string>;
  /** Settings for this statement only, as URL parameters give them. */
  settings: [name: string, value: string][];
  /** Output format when the statement has no FORMAT clause. */
  format: string;
  /** An INSERT: the rows it reads are the rows it writes. */
  insert: boolean;
  /** SET and USE: on a server without a session they change nothing after the request. */
  throwaway?: boolean;
}

export interface EngineResult {
  bytes: Uint8Array;
  elapsedSeconds: number;
  readRows: number;
  readBytes: number;
  writtenRows: number;
  writtenBytes: number;
}

interface NativeResult {
  bytes?: Uint8Array;
  elapsed: number;
  rowsRead?: number;
  bytesRead?: number;
  rowsWritten?: number;
  bytesWritten?: number;
}

/**
 * chDB's addon, reached directly: `Session.queryBindAsync` re-escapes string parameters from JS
 * values, while HTTP delivers them already in the engine's text form (`a\'b`, `['x','y']`), which
 * must reach the binder unchanged. Same entry points the package's own Session methods call.
 */
interface Native {
  QueryAsyncConnection(connection: unknown, sql: string, format: string, params?: Record<string, string>): Promise<NativeResult>;
  InsertRawAsyncConnection(connection: unknown, prefix: string, data: Uint8Array, countLines: boolean): Promise<NativeResult>;
}
const require = createRequire(import.meta.url);
const native: Native = require(join(dirname(require.resolve("chdb/package.json")), "dist/loader.js")).loadNative();

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const quoteString = (v: string) => `'${v.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
const quoteName = (v: string) => `\`${v.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;

export class Engine {
  private readonly session: Session;
  private tail: Promise<unknown> = Promise.resolve();
  private database = "default";
  readonly version: string;
  readonly timezone: string;

  constructor(readonly path: string) {
    this.session = new Session(path);
    const [version, timezone] = this.session.query("SELECT version(), timezone()", "TabSeparated").trim().split("\t");
    this.version = version;
    this.timezone = timezone;
  }

  /** Runs the request after every earlier one has finished. */
  run(req: EngineRequest): Promise<EngineResult> {
    const turn = this.tail.then(() => (req.throwaway ? this.runThrowaway(req) : this.runShared(req)));
    this.tail = turn.catch(() => {});
    return turn;
  }

  /** Resolves once every request queued so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => {});
  }

  close() {
    this.session.close();
  }

  private async runShared(req: EngineRequest): Promise<EngineResult> {
    const connection = this.session.connection;
    if (req.database !== this.database) {
      await call(native.QueryAsyncConnection(connection, `USE ${quoteName(req.database)}`, "TabSeparated"));
      this.database = req.database;
    }
    if (req.settings.length === 0) return execute(connection, req);
    try {
      await call(native.QueryAsyncConnection(connection, setStatement(req.settings), "TabSeparated"));
      return await execute(connection, req);
    } finally {
      await this.resetSettings(req.settings.map(([name]) => name));
    }
  }

  /** Back to the defaults: one statement, or one per name when a bad name makes that one fail. */
  private async resetSettings(names: string[]) {
    const connection = this.session.connection;
    const reset = (list: string[]) => native.QueryAsyncConnection(connection, `SET ${list.map((n) => `${n} = DEFAULT`).join(", ")}`, "TSV");
    await reset(names).catch(() => Promise.all(names.map((n) => reset([n]).catch(() => {}))));
  }

  private async runThrowaway(req: EngineRequest): Promise<EngineResult> {
    const session = new Session(this.path);
    try {
      await call(native.QueryAsyncConnection(session.connection, `USE ${quoteName(req.database)}`, "TabSeparated"));
      if (req.settings.length) await call(native.QueryAsyncConnection(session.connection, setStatement(req.settings), "TabSeparated"));
      return await execute(session.connection, req);
    } finally {
      session.close();
    }
  }
}

function setStatement(settings: EngineRequest["settings"]): string {
  for (const [name] of settings) if (!SETTING_NAME.test(name)) throw fail("UNKNOWN_SETTING", `Unknown setting '${name}'.`);
  return `SET ${settings.map(([name, value]) => `${name} = ${quoteString(value)}`).join(", ")}`;
}

async function execute(connection: unknown, req: EngineRequest): Promise<EngineResult> {
  if (req.data) {
    const r = await call(native.InsertRawAsyncConnection(connection, req.statement, req.data, false));
    return result(r, 0, 0, r.rowsWritten ?? 0, r.bytesWritten ?? 0);
  }
  const params = Object.keys(req.params).length ? req.params : undefined;
  const r = await call(native.QueryAsyncConnection(connection, req.statement, req.format, params));
  return req.insert ? result(r, 0, 0, r.rowsRead ?? 0, r.bytesRead ?? 0) : result(r, r.rowsRead ?? 0, r.bytesRead ?? 0, 0, 0);
}

function result(r: NativeResult, readRows: number, readBytes: number, writtenRows: number, writtenBytes: number): EngineResult {
  return { bytes: r.bytes ?? new Uint8Array(0), elapsedSeconds: r.elapsed ?? 0, readRows, readBytes, writtenRows, writtenBytes };
}

async function call(p: Promise<NativeResult>): Promise<NativeResult> {
  try {
    return await p;
  } catch (err) {
    throw ClickhouseException.fromEngine(err);
  }
}
