// Stand-in for the real server until it lands: a Bun.serve on 127.0.0.1:0 that answers the
// public-API paths the widgets call, with API_SPEC.md's envelope, error forms and row shapes.
// Tests only see the Backend interface below, so swapping in the real server (seeded accounts
// and keys made through the admin API) means providing another startBackend().
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { breakdown, conversions, funnel, LINK, LINKS, linkStats, PERIOD_DAYS, QUIET, summary, timeseries, usage } from './fixture-data';

export interface Backend {
  /** {origin}/public-api/v1 */
  base: string;
  origin: string;
  keys: {
    /** Read-only key (analytics, journey, conversions, links) of an account with data. */
    full: string;
    /** Same scopes, account without any click, link or event. */
    empty: string;
    noAnalytics: string;
    noJourney: string;
    noConversions: string;
    noLinks: string;
    /** A key whose IP allowlist excludes 127.0.0.1. */
    ipBlocked: string;
    /** Well-formed but unknown. */
    invalid: string;
    /** A key already over its hourly budget, where the backend can provide one. */
    rateLimited?: string;
  };
  /** A link of the full account with clicks, journey events and conversions. */
  linkId: string;
  /** A link of the full account without any traffic. */
  quietLinkId: string;
  /** An id that is nobody's link. */
  unknownLinkId: string;
  /** Event names that form a funnel on linkId. */
  funnelSteps: string[];
  /** Fixture only: answers wait until the returned function is called. */
  hold?(): () => void;
  stop(): Promise<void>;
}

type Account = 'full' | 'empty';
interface KeyRecord {
  account: Account;
  scopes: string[];
  ipBlocked?: boolean;
  rateLimited?: boolean;
}

const READ = ['analytics:read', 'journey:read', 'conversions:read', 'links:read'];
const key = (name: string) => `svc_${name.padEnd(28, '0')}`.slice(0, 32);
const KEYS: Record<string, KeyRecord> = {
  [key('fixturefull')]: { account: 'full', scopes: READ },
  [key('fixtureempty')]: { account: 'empty', scopes: READ },
  [key('fixturenoanalytics')]: { account: 'full', scopes: READ.filter((s) => s !== 'analytics:read') },
  [key('fixturenojourney')]: { account: 'full', scopes: READ.filter((s) => s !== 'journey:read') },
  [key('fixturenoconversions')]: { account: 'full', scopes: READ.filter((s) => s !== 'conversions:read') },
  [key('fixturenolinks')]: { account: 'full', scopes: READ.filter((s) => s !== 'links:read') },
  [key('fixtureipblocked')]: { account: 'full', scopes: READ, ipBlocked: true },
  [key('fixtureratelimited')]: { account: 'full', scopes: READ, rateLimited: true },
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

const meta = () => ({ request_id: crypto.randomUUID(), timestamp: new Date().toISOString() });
const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'X-API-Key, Content-Type' };
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { ...CORS, 'x-request-id': meta().request_id, ...headers } });

// ---- routing --------------------------------------------------------------------------------

function need(rec: KeyRecord, scope: string) {
  if (!rec.scopes.includes(scope)) throw new HttpError(403, 'INSUFFICIENT_PERMISSIONS', `API key lacks the ${scope} permission`, { required: scope });
}

function intParam(q: URLSearchParams, name: string, def: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw == null) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new HttpError(400, 'VALIDATION_ERROR', `${name}: must be an integer from ${min} to ${max}`, { fields: [{ field: name }] });
  return n;
}
function enumParam(q: URLSearchParams, name: string, def: string, allowed: string[]): string {
  const v = q.get(name) ?? def;
  if (!allowed.includes(v)) throw new HttpError(400, 'VALIDATION_ERROR', `${name}: must be one of ${allowed.join(', ')}`, { fields: [{ field: name }] });
  return v;
}

function route(path: string, q: URLSearchParams, rec: KeyRecord): unknown {
  const empty = rec.account === 'empty';
  const links = empty ? [] : LINKS;
  const linkOf = (id: string) => {
    if (!links.some((l) => l.id === id)) throw new HttpError(404, 'NOT_FOUND', 'Link not found');
    return id;
  };
  let m: RegExpMatchArray | null;
  if ((m = path.match(/^\/analytics\/(summary|timeseries|geo|devices|referrers|hourly)$/))) {
    need(rec, 'analytics:read');
    const days = intParam(q, 'days', 30, 1, 365);
    const bot = enumParam(q, 'bot_filter', 'real', ['real', 'bot', 'all']);
    const analytics = m[1] === 'summary' ? summary(days, bot, empty) : m[1] === 'timeseries' ? timeseries(days, bot, empty) : breakdown(m[1], bot, empty);
    return { analytics, usage: usage(empty) };
  }
  if ((m = path.match(/^\/journey\/links\/([^/]+)\/funnel$/))) {
    need(rec, 'journey:read');
    const id = linkOf(decodeURIComponent(m[1]));
    const period = enumParam(q, 'period', '30d', Object.keys(PERIOD_DAYS));
    const steps = (q.get('steps') || '').split(',').filter(Boolean);
    if (!steps.length) throw new HttpError(400, 'VALIDATION_ERROR', 'steps: required', { fields: [{ field: 'steps' }] });
    return funnel(steps, period, id === QUIET);
  }
  if ((m = path.match(/^\/conversions\/(summary|timeseries|time-to-convert)$/))) {
    need(rec, 'conversions:read');
    enumParam(q, 'period', '30d', Object.keys(PERIOD_DAYS));
    if (m[1] === 'timeseries') enumParam(q, 'interval', 'day', ['hour', 'day', 'week', 'month']);
    if (q.get('link_id')) linkOf(q.get('link_id')!);
    return conversions(m[1], q, empty);
  }
  if ((m = path.match(/^\/links\/([^/]+)\/stats$/))) {
    need(rec, 'analytics:read');
    return linkStats(linkOf(decodeURIComponent(m[1])));
  }
  if (path === '/links') {
    need(rec, 'links:read');
    const per = intParam(q, 'per_page', 20, 1, 250);
    return { list: links.slice(0, per).map(({ id, short_url, original_url, title }) => ({ id, short_url, original_url, title })), per };
  }
  throw new HttpError(404, 'NOT_FOUND', `No route ${path}`);
}

function answer(req: Request): Response {
  const url = new URL(req.url);
  if (req.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...CORS, 'access-control-allow-methods': 'GET' } });
  const dist = join(import.meta.dir, '../../dashboard-widgets/dist');
  if (url.pathname === '/widgets.js' || url.pathname === '/dashboard') {
    const file = join(dist, url.pathname === '/widgets.js' ? 'widgets.js' : 'dashboard.html');
    if (!existsSync(file)) return new Response('run the build first', { status: 404 });
    return new Response(readFileSync(file), { headers: { 'content-type': url.pathname === '/widgets.js' ? 'text/javascript' : 'text/html; charset=utf-8' } });
  }
  const prefix = '/public-api/v1';
  try {
    if (!url.pathname.startsWith(prefix)) throw new HttpError(404, 'NOT_FOUND', 'Not found');
    const apiKey = req.headers.get('x-api-key');
    if (!apiKey) throw new HttpError(401, 'UNAUTHORIZED', 'Missing API key');
    const rec = KEYS[apiKey];
    if (!rec) throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
    if (rec.ipBlocked) throw new HttpError(403, 'IP_NOT_ALLOWED', 'Request IP address is not allowed for this API key');
    if (rec.rateLimited)
      return json(429, { success: false, error: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded. Try again in 1200 seconds.' }, { 'retry-after': '1200' });
    const data = route(url.pathname.slice(prefix.length), url.searchParams, rec);
    if (url.pathname === prefix + '/links') {
      const { list, per } = data as { list: unknown[]; per: number };
      return json(200, { success: true, data: list, meta: { ...meta(), page: 1, per_page: per, total: list.length, total_pages: 1 } });
    }
    return json(200, { success: true, data, meta: meta() });
  } catch (e) {
    const err = e instanceof HttpError ? e : new HttpError(500, 'INTERNAL_ERROR', 'Internal error');
    const error = err.details ? { code: err.code, message: err.message, details: err.details } : { code: err.code, message: err.message };
    return json(err.status, { success: false, error, meta: { ...meta(), status: err.status } });
  }
}

export async function startFixtureServer(): Promise<Backend> {
  let gate: Promise<void> | null = null;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      if (gate) await gate;
      return answer(req);
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    base: `${origin}/public-api/v1`,
    keys: {
      full: key('fixturefull'),
      empty: key('fixtureempty'),
      noAnalytics: key('fixturenoanalytics'),
      noJourney: key('fixturenojourney'),
      noConversions: key('fixturenoconversions'),
      noLinks: key('fixturenolinks'),
      ipBlocked: key('fixtureipblocked'),
      invalid: key('fixtureunknownkey'),
      rateLimited: key('fixtureratelimited'),
    },
    linkId: LINK,
    quietLinkId: QUIET,
    unknownLinkId: '00000000-0000-4000-8000-000000000000',
    funnelSteps: ['page_view', 'signup', 'purchase'],
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
    async stop() {
      await server.stop(true);
    },
  };
}

// `bun test/widgets/fixture-server.ts` serves the fixture (and the built widgets) for a browser.
if (import.meta.main) {
  const b = await startFixtureServer();
  console.log(`fixture API at ${b.base}\ndashboard at ${b.origin}/dashboard\nkey ${b.keys.full}`);
}
