// Backpressure of POST /journey/events. Besides the spool's byte bound, a batch is refused while the
// spool holds more than the flusher stores in `maxLagMs` at its measured rate: under sustained
// overload the backlog then stays about that long, so accepted events become queryable within about
// 2 s (our ingest target) instead of waiting behind a spool filled to SPOOL_MAX_BYTES, and the flusher never
// runs dry. While flushes keep failing (ClickHouse down), only the byte bound applies, so the spool
// rides out the outage.
import type { Spool } from "../ingest/spool";

/** `flush_lag` clears within about a second; `spool_full` means ClickHouse is failing or far behind. */
export interface Refusal {
  reason: "spool_full" | "flush_lag";
}

const SPOOL_FULL: Refusal = { reason: "spool_full" };
const FLUSH_LAG: Refusal = { reason: "flush_lag" };
/** Always allowed (one journey chunk), so a cold start or an underestimated rate never refuses a trickle. */
const MIN_BACKLOG_BYTES = 16 * 1024 * 1024;

export class IngestAdmission {
  private bytesPerMs = MIN_BACKLOG_BYTES / 1000;
  private flushed = 0;
  private flushedAt = 0;
  private busy = false;
  private errors = 0;
  private failing = false;

  constructor(
    private readonly spool: Pick<Spool<unknown>, "stats" | "unflushedBytes" | "isOverBound">,
    private readonly maxLagMs: number,
  ) {}

  /** Why a new batch must wait, or null. Called for every batch, so it also samples the flush rate. */
  refusal(nowMs: number): Refusal | null {
    if (this.spool.isOverBound) return SPOOL_FULL;
    const { flushedBytes, flushErrors } = this.spool.stats;
    if (flushedBytes !== this.flushed) {
      // A chunk finished. If the backlog was not empty when the previous one finished, the flusher
      // worked on this one all along: bytes over time is its rate.
      if (this.busy && nowMs > this.flushedAt) {
        this.bytesPerMs = 0.7 * this.bytesPerMs + 0.3 * ((flushedBytes - this.flushed) / (nowMs - this.flushedAt));
      }
      this.flushed = flushedBytes;
      this.flushedAt = nowMs;
      this.busy = this.spool.unflushedBytes > 0;
      this.failing = false;
    } else if (flushErrors !== this.errors) {
      this.failing = true;
    }
    this.errors = flushErrors;
    if (this.failing) return null;
    return this.spool.unflushedBytes > Math.max(MIN_BACKLOG_BYTES, this.bytesPerMs * this.maxLagMs) ? FLUSH_LAG : null;
  }
}
