// Tests whose state moves with the hour (a stored range, a compared window) start with enough of it left.
const HOUR = 3_600_000;
const MIN = 60_000;

/** The most roomInHour can wait, for the timeout of the hook that calls it. */
export const ROOM_IN_HOUR_MAX_WAIT_MS = 6 * MIN;

/** Waits, when fewer than `minutes` of this hour are left, for the next one, and `goneMs` into it. */
export async function roomInHour(minutes: number, goneMs = 1_000): Promise<void> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < minutes * MIN) await Bun.sleep(left + goneMs);
  const into = Date.now() % HOUR;
  if (into < goneMs) await Bun.sleep(goneMs - into);
}
