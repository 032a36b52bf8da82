// State the reports keep in memory per ClickHouse client (the runtime's reports client; each test app
// has its own): made on first use, gone with the client.
import type { Clickhouse } from "../storage/clickhouse/client";

/** A getter of the client's own `T`, made by `make` the first time. */
export function perClient<T>(make: () => T): (ch: Clickhouse) => T {
  const all = new WeakMap<Clickhouse, T>();
  return (ch) => {
    let v = all.get(ch);
    if (v === undefined) {
      v = make();
      all.set(ch, v);
    }
    return v;
  };
}
