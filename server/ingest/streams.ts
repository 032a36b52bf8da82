// The two spooled streams, each flushed into its ClickHouse table by a feature-provided sink.
import { join } from "node:path";
import { Spool } from "./spool";
import type { JourneyRecord, RawClick } from "./records";

export type Sink<T> = (records: T[], dedupToken: string) => Promise<void>;
/** A chunk's bytes instead of its parsed records (see SpoolOptions.sinkRaw); resolves to the records stored. */
export type RawSink = (bytes: Buffer, dedupToken: string) => Promise<number>;

export interface Streams {
  clicks: Spool<RawClick>;
  journey: Spool<JourneyRecord>;
  all: Spool<unknown>[];
}

export interface StreamOptions {
  dataDir: string;
  maxUnflushedBytes: number;
  flushIntervalMs: number;
  onError: (stream: string, err: unknown) => void;
  /** Called after a chunk is stored in ClickHouse (metrics). */
  onStored?: (stream: string, count: number) => void;
}

export type Reconcile<T> = (records: T[]) => Promise<T[]>;

export function openStreams(
  opts: StreamOptions,
  sinks: { clicks: Sink<RawClick>; journey: Sink<JourneyRecord> },
  reconcilers: { clicks?: Reconcile<RawClick>; journey?: Reconcile<JourneyRecord> } = {},
  rawSinks: { clicks?: RawSink; journey?: RawSink } = {},
): Streams {
  const make = <T>(name: string, sink: Sink<T>, maxChunkBytes: number, reconcile?: Reconcile<T>, sinkRaw?: RawSink) =>
    new Spool<T>({
      dir: join(opts.dataDir, "spool", name),
      name,
      maxUnflushedBytes: opts.maxUnflushedBytes,
      flushIntervalMs: opts.flushIntervalMs,
      maxChunkBytes,
      reconcile,
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
    });
  // Large chunks: every ClickHouse insert has a fixed cost (one pipeline per materialized view); the
  // journey stream's seven rollups make that cost high enough that 16 MB (~46,000 events) pays off.
  const clicks = make("clicks", sinks.clicks, 8 * 1024 * 1024, reconcilers.clicks, rawSinks.clicks);
  const journey = make("journey", sinks.journey, 16 * 1024 * 1024, reconcilers.journey, rawSinks.journey);
  return { clicks, journey, all: [clicks as Spool<unknown>, journey as Spool<unknown>] };
}
