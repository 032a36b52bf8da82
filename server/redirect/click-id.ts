// Click ids without a random UUID per redirect: a random prefix drawn once per process (74 random
// bits, as a version-4 UUID's first 20 hex digits) and a 48-bit counter as its last 12. Two processes
// (instances, restarts) share a prefix with a chance of 2^-74 per pair; within one, the counter never
// repeats (a new prefix is drawn if it ever runs out). The ids are valid UUIDs for the `clicks` table.
import { randomBytes } from "node:crypto";

const COUNTER_LIMIT = 2 ** 48;

function newPrefix(): string {
  const hex = randomBytes(10).toString("hex");
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12, 15)}-${variant}${hex.slice(17, 20)}-`;
}

// The last three hex digits come from a table; the nine before them change every 4,096 ids.
const LOW = Array.from({ length: 4096 }, (_, i) => i.toString(16).padStart(3, "0"));
let prefix = newPrefix();
let counter = 0;
let high = "";

export function nextClickId(): string {
  const low = counter & 0xfff;
  if (low === 0) {
    if (counter >= COUNTER_LIMIT) {
      prefix = newPrefix();
      counter = 0;
    }
    high =
      prefix +
      Math.floor(counter / 4096)
        .toString(16)
        .padStart(9, "0");
  }
  counter++;
  return high + LOW[low];
}
