// Who wrote a spool chunk. Every spool directory gets a random id the first time it is opened, kept in
// `spool-id.json` beside its segments, and every chunk's deduplication token carries it. Positions alone
// (segment, byte range) repeat across instances and across a new DATA_DIR against a ClickHouse that kept
// its data, and ClickHouse drops an insert whose token it has seen: the id keeps tokens of different
// spools apart, while a replay from the same directory still sends the same token.
import { existsSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { writeFileDurably } from "../../storage/durable-file";

export interface ChunkPosition {
  segment: number;
  start: number;
  end: number;
}

export interface SpoolIdentity {
  id: string;
  /**
   * A spool written before ids existed may have had a chunk in flight (its checkpoint's `pending`),
   * inserted or not under the old token `<name>-<segment>-<start>-<end>`; that one chunk keeps the old
   * token so that its replay is still recognised as a duplicate.
   */
  legacy: ChunkPosition | null;
}

const FILE = "spool-id.json";
const ID = /^[0-9a-f]{32}$/;

/** Reads the directory's identity, creating it (durably, before any insert can use it) when missing. */
export function readOrCreateSpoolIdentity(dir: string, pendingAtOpen: ChunkPosition | null): SpoolIdentity {
  const path = join(dir, FILE);
  if (existsSync(path)) {
    const identity = JSON.parse(readFileSync(path, "utf8")) as SpoolIdentity;
    // A regenerated id would turn the replay of an in-flight chunk into a second insert: refuse instead.
    if (!ID.test(identity?.id ?? "")) throw new Error(`spool ${dir}: ${FILE} does not hold a valid id`);
    return { id: identity.id, legacy: identity.legacy ?? null };
  }
  const identity: SpoolIdentity = { id: randomBytes(16).toString("hex"), legacy: pendingAtOpen };
  writeFileDurably(path, JSON.stringify(identity));
  return identity;
}

/** The deduplication token of a chunk: `<stream>-<spool id>-<segment>-<start>-<end>`. */
export function chunkToken(name: string, identity: SpoolIdentity, chunk: ChunkPosition): string {
  const { legacy } = identity;
  if (legacy && legacy.segment === chunk.segment && legacy.start === chunk.start && legacy.end === chunk.end) {
    return `${name}-${chunk.segment}-${chunk.start}-${chunk.end}`;
  }
  return `${name}-${identity.id}-${chunk.segment}-${chunk.start}-${chunk.end}`;
}
