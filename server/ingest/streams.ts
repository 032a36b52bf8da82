// The two spooled streams, one named entry each: the pipeline in server/ingest/clicks or
// server/ingest/journey says how its chunks reach ClickHouse (StreamEntry); the runtime opens both.
import { join } from "node:path";
import { Spool, type RecordEncoder } from "./spool";
import { RECENT_MAX_RECORDS, RecentUnflushed } from "./recent";
import type { RawClick } from "./clicks/record";
import type { JourneyRecord, JourneyRow } from "./journey/record";
import { journeyRealtimeRow } from "./journey/rows";

export type Sink<T> = (records: T[], dedupToken: string) => Promise<void>;
/** A chunk's bytes instead of its parsed records (see SpoolOptions.sinkRaw); resolves to the records stored. */
export type RawSink = (bytes: Buffer, dedupToken: string) => Promise<number>;
export type Reconcile<T> = (records: T[]) => Promise<T[]>;

/** How one stream's chunks are stored (the spool's SpoolOptions of the same names). */
export interface StreamEntry<T> {
  sink: Sink<T>;
  sinkRaw?: RawSink;
  /** After a crash, the records of the chunk that was in flight that are not stored yet. */
  reconcile?: Reconcile<T>;
  /** The largest chunk one insert takes. */
  maxChunkBytes: number;
  /** Before each chunk: whether the spool holds more than SPOOL_MAX_BYTES unflushed. */
  onOverBound?: (over: boolean) => void;
  /** See SpoolOptions.gatherMs. */
  gatherMs?: number;
  /** See SpoolOptions.appendLine. */
  appendLine?: (records: readonly T[]) => Buffer | null;
}

/** A stream's own line format for single records (SpoolOptions.encoder), and its reader of chunks. */
export interface LineFormat<T> {
  encoder: RecordEncoder<T>;
  parse: (bytes: Buffer) => T[];
}

export interface StreamEntries {
  clicks: StreamEntry<RawClick> & LineFormat<RawClick>;
  journey: StreamEntry<JourneyRecord> & Partial<LineFormat<JourneyRecord>>;
}

export interface Streams {
  clicks: Spool<RawClick>;
  journey: Spool<JourneyRecord>;
  all: Spool<unknown>[];
  /** What this process wrote to each spool that ClickHouse does not hold yet (the realtime reports). */
  recent: { clicks: RecentUnflushed<RawClick>; journey: RecentUnflushed<JourneyRecord, JourneyRow> };
  /**
   * Shutdown: closes both spools at once under one drain deadline (`drainMs`); resolves to the bytes each
   * left for the next start.
   */
  close(): Promise<Record<string, number>>;
}

export interface StreamOptions {
  dataDir: string;
  maxUnflushedBytes: number;
  flushIntervalMs: number;
  /** How long a shutdown may spend draining the spools (unset: until they are empty). */
  drainMs?: number;
  onError: (stream: string, err: unknown) => void;
  /** Called after a chunk is stored in ClickHouse (metrics). */
  onStored?: (stream: string, count: number) => void;
}

export function openStreams(opts: StreamOptions, entries: StreamEntries): Streams {
  const open = <T>(
    name: string,
    { sink, sinkRaw, reconcile, maxChunkBytes, onOverBound, gatherMs, encoder, parse, appendLine }: StreamEntry<T> & Partial<LineFormat<T>>,
  ) =>
    new Spool<T>({
      dir: join(opts.dataDir, "spool", name),
      name,
      maxUnflushedBytes: opts.maxUnflushedBytes,
      flushIntervalMs: opts.flushIntervalMs,
      drainMs: opts.drainMs,
      gatherMs,
      maxChunkBytes,
      reconcile,
      encoder,
      appendLine,
      parse,
      sink: async (records, token) => {
        await sink(records, token);
        opts.onStored?.(name, records.length);
      },
      sinkRaw:
        sinkRaw &&
        (async (bytes, token) => {
          const count = await sinkRaw(bytes, token);
          opts.onStored?.(name, count);
          return count;
        }),
      onError: (err) => opts.onError(name, err),
      onBacklog: onOverBound && ((bytes) => onOverBound(bytes >= opts.maxUnflushedBytes)),
    });
  const clicks = open("clicks", entries.clicks);
  const journey = open("journey", entries.journey);
  const all = [clicks as Spool<unknown>, journey as Spool<unknown>];
  return {
    clicks,
    journey,
    all,
    recent: {
      clicks: new RecentUnflushed(clicks),
      journey: new RecentUnflushed(journey, RECENT_MAX_RECORDS, journeyRealtimeRow),
    },
    close: async () => Object.fromEntries(await Promise.all(all.map(async (s) => [s.name, await s.close()] as const))),
  };
}
