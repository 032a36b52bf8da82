// Timing of in-process queries against a baseline measured in the same run: each run calls the query,
// then its baseline, so both see the same machine (its speed moves by 2–3× from day to day).

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export interface PairTiming {
  p50: number;
  p99: number;
  baseP50: number;
  baseP99: number;
}

async function elapsed(fn: () => Promise<unknown>) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** p50/p99 in ms of `query` and of `baseline` over `runs` alternating calls, after two warm-up calls of each. */
export async function timeAgainstBaseline(
  runs: number,
  query: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
): Promise<PairTiming> {
  for (let i = 0; i < 2; i++) {
    await query();
    await baseline();
  }
  const times: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(await elapsed(query));
    base.push(await elapsed(baseline));
  }
  times.sort((a, b) => a - b);
  base.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), baseP50: percentile(base, 50), baseP99: percentile(base, 99) };
}

export interface MultiTiming {
  p50: number;
  p99: number;
  baselineP50s: number[];
  /** This process's CPU time (user + system) per call of `query`, in ms. */
  cpuPerCall: number;
}

/** Like timeAgainstBaseline with several baselines, each called after `query` in every run; also the CPU per call. */
export async function timeAgainstBaselines(
  runs: number,
  query: () => Promise<unknown>,
  baselines: (() => Promise<unknown>)[],
): Promise<MultiTiming> {
  for (let i = 0; i < 2; i++) {
    await query();
    for (const b of baselines) await b();
  }
  const times: number[] = [];
  const base = baselines.map(() => [] as number[]);
  let cpu = 0;
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    times.push(await elapsed(query));
    const used = process.cpuUsage(before);
    cpu += (used.user + used.system) / 1000;
    for (const [j, b] of baselines.entries()) base[j].push(await elapsed(b));
  }
  times.sort((a, b) => a - b);
  for (const b of base) b.sort((x, y) => x - y);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    baselineP50s: base.map((b) => percentile(b, 50)),
    cpuPerCall: cpu / runs,
  };
}

/** The columns every query bench prints for one row. */
export const timingColumns = (t: PairTiming) => ({
  "p50 ms": t.p50.toFixed(1),
  "p99 ms": t.p99.toFixed(1),
  "baseline p50 ms": t.baseP50.toFixed(1),
  "p50 ÷ baseline": (t.p50 / t.baseP50).toFixed(1),
});
