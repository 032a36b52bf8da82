// A build script of the repository (`bun <script> …args`) as a child process with a minimal environment.
import { join } from "node:path";
import { childEnv } from "./child-env";

export const ROOT = join(import.meta.dir, "..", "..");

export const runBuild = (script: string, ...args: string[]) =>
  Bun.spawnSync([process.execPath, script, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: childEnv({}) });
