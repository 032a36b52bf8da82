// Loaded before every test file (bunfig.toml): tests see UTC dates regardless of the machine, and
// every API answer they receive is checked against the OpenAPI document (test/helpers/contract.ts).
import { afterAll, afterEach, setDefaultTimeout } from "bun:test";
import { installFetchContract, violations } from "./fetch-contract";
import { removeProcessTempDirs } from "./temp-dirs";

process.env.TZ = "UTC";

// Integration tests start real stores and servers: a plain `bun test FILE` gets a minute, not 5 s (Bun reads
// no timeout from bunfig.toml, and applies this to the first file of a run only: for several files pass
// --timeout, as `npm test` does).
setDefaultTimeout(60_000);

installFetchContract();

// A contract violation fails the test that produced it even when the test caught the thrown error.
afterEach(() => {
  const found = violations.splice(0);
  if (found.length) throw found[0];
});

// Directories kept for the whole run (the shared chDB, the PGlite template), removed at its end.
afterAll(removeProcessTempDirs);
