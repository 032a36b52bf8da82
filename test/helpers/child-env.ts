// A child process's environment: only what it needs, never the developer's. Apart from the store
// helpers, so that a pure test (*.unit.test.ts) can spawn a process without importing them.
export const childEnv = (vars: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/tmp",
  TZ: "UTC",
  ...vars,
});
