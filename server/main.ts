// Boot: config → stores → app.listen(); SIGTERM/SIGINT → stop accepting, drain the spools, close stores.
import { loadConfig, loadConfigOnPort, ConfigError, multiInstanceCheck, useProductionMode } from "./config";
import { API_PREFIX } from "./http/api-prefix";

let config;
try {
  config = loadConfig();
  const { errors, warnings } = multiInstanceCheck(config);
  if (errors.length) throw new ConfigError(errors.join("\n"));
  for (const msg of warnings) console.log(JSON.stringify({ time: new Date().toISOString(), level: "warn", msg }));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
// Before Elysia is loaded: it reads NODE_ENV once, at import.
useProductionMode();
const { openRuntime } = await import("./runtime");
const { bindFirst, serveApp } = await import("./serve");
const { guardProcess } = await import("./process-guard");

// PORT=0: the port the system picks is bound before the runtime opens, so that BASE_URL's default, and
// every URL made from it (short links, the setup link, the lines below), names it.
const early = config.port === 0 ? bindFirst(config, { port: 0, hostname: config.host }) : null;
if (early) config = loadConfigOnPort(early.port);
const runtime = await openRuntime(config);
guardProcess(runtime.deps.logger);
const server = early ? early.serve(runtime) : serveApp(runtime, { port: config.port, hostname: config.host });
console.log(JSON.stringify({ time: new Date().toISOString(), level: "info", msg: "listening", url: config.baseUrl, port: server.port }));
if (runtime.devKeyPath) {
  console.log(`Created the default account and an all-scopes API key. The key is in ${runtime.devKeyPath}`);
  console.log(`Try: curl -H "X-API-Key: $(cat ${runtime.devKeyPath})" ${config.baseUrl}${API_PREFIX}/links`);
}
if (runtime.setupUrl) {
  console.log(`Open the console and choose the owner's email and password (one-time link, 7 days): ${runtime.setupUrl}`);
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(JSON.stringify({ time: new Date().toISOString(), level: "info", msg: "shutting down", signal }));
  await server.stop();
  await runtime.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
