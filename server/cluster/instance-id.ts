// Which instance this is. The id is random, created with DATA_DIR and kept in `DATA_DIR/instance-id`,
// so a process restarted on the same volume is the same instance: it settles the idempotency keys and
// releases the webhook leases its predecessor held, and takes over its row in the instance registry.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileDurably } from "../storage/durable-file";

const FILE = "instance-id";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function readOrCreateInstanceId(dataDir: string): string {
  const path = join(dataDir, FILE);
  if (existsSync(path)) {
    const id = readFileSync(path, "utf8").trim();
    // A new id would orphan what the old one holds (leases, pending keys) until they time out: refuse instead.
    if (!UUID.test(id)) throw new Error(`${path} does not hold a valid instance id`);
    return id;
  }
  mkdirSync(dataDir, { recursive: true });
  const id = crypto.randomUUID();
  writeFileDurably(path, id);
  return id;
}
