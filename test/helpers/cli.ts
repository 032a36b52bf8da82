// The operator's CLI (`bun server/cli.ts`) as a child process with a minimal environment, against a
// server of ours with the test apps' admin token.
import { ADMIN_TOKEN } from "./app";
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
