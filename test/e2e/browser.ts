// Headless Chromium for the end-to-end tests, driven by playwright-core: CHROMIUM_PATH if set, else
// Debian's /usr/bin/chromium, else the Chromium shipped in the npm package @sparticuz/chromium (a dev
// dependency: `npm install` alone is enough for `npm test`). SVC_TEST_BUNDLED_CHROMIUM=1 hides the
// system Chromium, as CI does for one run of the browser tests. A browser that cannot start fails
// the test (never skips).
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

const SYSTEM_CHROMIUM = "/usr/bin/chromium";
const bundledOnly = process.env.SVC_TEST_BUNDLED_CHROMIUM === "1";

const ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let bundled: Promise<string> | undefined;
/** The npm package's Chromium, unpacked once per process (into the system's temporary directory). */
function bundledChromium(): Promise<string> {
  bundled ??= import("@sparticuz/chromium").then((m) => m.default.executablePath());
  return bundled;
}

/** Which Chromium the tests start, and where it came from. */
export async function chromiumPath(): Promise<{ path: string; source: "CHROMIUM_PATH" | "system" | "@sparticuz/chromium" }> {
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`CHROMIUM_PATH=${explicit}: no such file`);
    return { path: explicit, source: "CHROMIUM_PATH" };
  }
  if (!bundledOnly && existsSync(SYSTEM_CHROMIUM)) return { path: SYSTEM_CHROMIUM, source: "system" };
  return { path: await bundledChromium(), source: "@sparticuz/chromium" };
}

let launchedFrom: Awaited<ReturnType<typeof chromiumPath>>["source"] | undefined;

export async function launchBrowser(): Promise<Browser> {
  const { path, source } = await chromiumPath();
  launchedFrom = source;
  return chromium.launch({ executablePath: path, args: ARGS });
}

/**
 * Closes a tab the way a visitor does, so that its pagehide and visibilitychange handlers run and the
 * keepalive requests they send leave. The npm package's Chromium is a headless shell that drops those
 * requests when a tab is closed directly (measured: none arrive; Debian's Chromium delivers them), so
 * there the tab first navigates away, which runs the same handlers.
 */
export async function closeTab(page: Page): Promise<void> {
  if (launchedFrom === "@sparticuz/chromium") await page.goto("about:blank");
  await page.close({ runBeforeUnload: true });
}

/** Collects uncaught page errors and console errors, so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  return errors;
}
