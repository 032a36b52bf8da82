// The operator's CLI (`bun server/cli.ts`) as a child process with a minimal environment, against a
// server of ours with the test apps' admin token.
import { afterAll, beforeAll } from "bun:test";
import { ADMIN_TOKEN, createTestApp, listen, type TestApp } from "./app";
import { childEnv } from "./stores";

export async function runCli(serverUrl: string, ...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const p = Bun.spawn([process.execPath, "server/cli.ts", ...args, "--url", serverUrl, "--token", ADMIN_TOKEN], {
    env: childEnv({}),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

/**
 * For the tests of a file (or of a describe block): a test app served on loopback, made before them and
 * closed after them, and `cli` to run the operator's CLI against it.
 */
export function useCliServer() {
  const s = {} as { t: TestApp; server: { url: string; stop(): Promise<void> } };
  beforeAll(async () => {
    s.t = await createTestApp();
    s.server = listen(s.t);
  });
  afterAll(async () => {
    await s.server.stop();
    await s.t.close();
  });
  return {
    get t() {
      return s.t;
    },
    get url() {
      return s.server.url;
    },
    cli: (...args: string[]) => runCli(s.server.url, ...args),
  };
}
