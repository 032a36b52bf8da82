// Waiting for something to happen by checking for it, never by sleeping a fixed time.

/** Polls `check` until it holds; fails after `ms`, naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 20_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}
