// What this process wrote to a spool and ClickHouse does not hold yet, for the realtime reports
// (server/realtime/): the spool tells each write's end in the log (Spool.onWritten) and how far the
// flusher has stored (Spool.flushedTo), so a record is unflushed exactly while `flushedTo < end`.
// Clicks are held as the spool's own objects (no copy): the redirect path pays one array push per click.
// A stream may hold less than its record (`keep`): journey events keep the few columns the realtime
// query reads, not the whole row (page URL, title, properties…), about 2.5× less heap per event.
//
// Only this process's writes: the backlog an earlier process left is counted once it is flushed, and
// another instance's spool is that instance's (docs/insights.md "Realtime").
import type { Spool } from "./spool";

/** Unflushed records kept at most: beyond it (a flusher stalled for long) the oldest wait for ClickHouse. */
export const RECENT_MAX_RECORDS = 50_000;
/** Records written longer ago than this are dropped even when unflushed: no realtime window reaches them. */
export const RECENT_KEEP_MS = 31 * 60_000;

export class RecentUnflushed<T, K = T> {
  private records: K[] = [];
  private ends: number[] = [];
  private writtenAt: number[] = [];
  private head = 0;
  private sincePrune = 0;
  /** Unflushed records dropped for the bound or their age since start-up. */
  dropped = 0;

  constructor(
    private readonly spool: Pick<Spool<T>, "flushedTo" | "onWritten">,
    private readonly maxRecords = RECENT_MAX_RECORDS,
    keep?: (record: T) => K,
  ) {
    spool.onWritten((records, end) => {
      const now = Date.now();
      if (keep) for (const r of records) this.records.push(keep(r));
      else for (const r of records) this.records.push(r as unknown as K);
      for (let i = 0; i < records.length; i++) {
        this.ends.push(end);
        this.writtenAt.push(now);
      }
      this.sincePrune += records.length;
      if (this.sincePrune >= 1024) this.prune(now);
    });
  }

  /** The records written and not yet stored in ClickHouse (as `keep` made them), oldest first (a copy). */
  unflushed(now = Date.now()): K[] {
    this.prune(now);
    return this.records.slice(this.head);
  }

  private prune(now: number): void {
    this.sincePrune = 0;
    const flushed = this.spool.flushedTo;
    const oldest = now - RECENT_KEEP_MS;
    const excess = this.ends.length - this.head - this.maxRecords;
    let h = this.head;
    while (h < this.ends.length && (this.ends[h] <= flushed || this.writtenAt[h] < oldest || h - this.head < excess)) {
      if (this.ends[h] > flushed) this.dropped += 1;
      h += 1;
    }
    this.head = h;
    if (h > 4096 && h * 2 > this.ends.length) {
      this.records = this.records.slice(h);
      this.ends = this.ends.slice(h);
      this.writtenAt = this.writtenAt.slice(h);
      this.head = 0;
    }
  }
}
