// `npm run recover [-- EMAIL] [--account ID]`: a one-time console link for a locked-out owner, made in the
// database itself (server/users/recover.ts). It reads the server's configuration (DATA_DIR, DATABASE_URL,
// BASE_URL) as `npm start` does. The embedded database takes one process at a time: stop the server first.
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, localProbeUrl } from "./config";
import { openPostgres } from "./storage/postgres/client";
import { recoveryLink } from "./users/recover";

const HELP = `Usage: npm run recover -- [EMAIL] [--account ACCOUNT_ID]

  EMAIL               a password reset link for this user (one use, one hour)
  (no EMAIL)          an owner setup link for the first account, or --account's: its opener
                      chooses an email and a password and becomes an owner (one use, 7 days)

Run it on the server's machine, in its folder, with its environment (DATA_DIR, DATABASE_URL,
BASE_URL). With the embedded database, stop the server first (Ctrl-C), then start it again.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { account: { type: "string" }, help: { type: "boolean" } },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

// PGlite holds its directory for one process: a running server must stop first (its data is not shared).
// It is looked for where it listens (PORT on loopback, or HOST) as well as at BASE_URL: a public BASE_URL
// (behind a proxy, or a name this machine cannot resolve) must not let two processes open the database.
if (!config.databaseUrl) {
  const answers = (url: string) =>
    fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
  const wildcard = ["0.0.0.0", "::", "127.0.0.1", "localhost"].includes(config.host);
  const where = [
    `${config.baseUrl}/healthz`,
    localProbeUrl("/healthz", { PORT: String(config.port) }),
    ...(wildcard ? [] : [`http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}/healthz`]),
  ];
  const running = (await Promise.all(where.map(answers))).some(Boolean);
  if (running) {
    console.error(`The server is running at ${config.baseUrl}. Stop it (Ctrl-C), run this again, then start it with npm start.`);
    process.exit(1);
  }
}

const pg = await openPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  const r = await recoveryLink(pg, config.baseUrl, { email: positionals[0], accountId: values.account });
  if (r.kind === "reset") {
    console.log(`Password reset link for ${r.email} (one use, until ${r.expires_at}):\n${r.url}`);
  } else if (r.kind === "setup") {
    console.log(`Owner setup link for the account "${r.account}" (one use, 7 days): choose an email and a password.\n${r.url}`);
  } else if (r.kind === "unknown-email") {
    console.error(`No user has the email ${r.email}. Run without an email for an owner setup link.`);
    process.exitCode = 1;
  } else {
    console.error(
      values.account ? `No account has the id ${values.account}.` : "There is no account yet: start the server once with npm start.",
    );
    process.exitCode = 1;
  }
} finally {
  await pg.close();
}
