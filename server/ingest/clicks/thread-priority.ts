// Background threads' CPU priority on Linux. SCHED_IDLE, not just nice 19: the scheduler runs an
// idle-policy thread only on a core nothing else wants, and any waking normal thread (an HTTP request,
// the load's own client) preempts it at once; a nice-19 thread still gets slices of a busy core and is
// preempted only when the wakee's deadline comes first. The nice value is set too, as the fallback where
// sched_setscheduler is refused (some containers) or bun:ffi is unavailable.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setPriority } from "node:os";

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;
const NICENESS = 19;

type SetScheduler = (tid: number, policy: number, param: Int32Array) => number;
let setScheduler: SetScheduler | null | undefined;

function loadSetScheduler(): SetScheduler | null {
  if (setScheduler !== undefined) return setScheduler;
  setScheduler = null;
  if (process.platform !== "linux") return null;
  try {
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const libc = dlopen("libc.so.6", { sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    setScheduler = (tid, policy, param) => libc.symbols.sched_setscheduler(tid, policy, ptr(param)) as number;
  } catch {
    setScheduler = null;
  }
  return setScheduler;
}

/** Puts one thread (by its Linux tid) at background priority, as far as the system allows. */
function lowerThreadPriority(tid: number): void {
  try {
    setPriority(tid, NICENESS);
  } catch {
    /* not permitted */
  }
  loadSetScheduler()?.(tid, SCHED_IDLE, new Int32Array(1));
}

/** Back to normal priority (needs CAP_SYS_NICE or a permissive RLIMIT_NICE; else it stays where it is). */
function raiseThreadPriority(tid: number): void {
  loadSetScheduler()?.(tid, SCHED_OTHER, new Int32Array(1));
  try {
    setPriority(tid, 0);
  } catch {
    /* not permitted */
  }
}

/** The calling thread's tid (Linux gives each thread its own scheduling policy and nice value). */
const ownTid = (): number | null => {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) ? tid : null;
  } catch {
    return null; // Not Linux: the worker still keeps enrichment off the main thread.
  }
};

export function lowerOwnPriority(): void {
  const tid = ownTid();
  if (tid !== null) lowerThreadPriority(tid);
}

export function raiseOwnPriority(): void {
  const tid = ownTid();
  if (tid !== null) raiseThreadPriority(tid);
}

/** Whether the calling thread runs at background priority now (SCHED_IDLE or a positive nice value). */
export function ownPriorityIsBackground(): boolean {
  try {
    const { nice, policy } = schedOf(readFileSync("/proc/thread-self/stat", "utf8"));
    return policy === SCHED_IDLE || nice > 0;
  } catch {
    return false;
  }
}

const schedOf = (stat: string) => {
  const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { name, nice: Number(fields[16]), policy: Number(fields[38]) };
};

/**
 * Lowers every thread of the process that is still at normal priority, except those whose name matches
 * `spared`. Threads created later are caught by the next call.
 */
export function lowerOtherThreads(spared: RegExp): void {
  forOtherThreads(spared, (tid, { nice, policy }) => {
    if (nice === 0 || policy === SCHED_OTHER) lowerThreadPriority(tid);
  });
}

/** The reverse of lowerOtherThreads: every thread not matching `spared` back at normal priority. */
export function raiseOtherThreads(spared: RegExp): void {
  forOtherThreads(spared, (tid, { nice, policy }) => {
    if (nice !== 0 || policy !== SCHED_OTHER) raiseThreadPriority(tid);
  });
}

function forOtherThreads(spared: RegExp, each: (tid: number, sched: ReturnType<typeof schedOf>) => void): void {
  try {
    for (const tid of readdirSync("/proc/self/task")) {
      if (tid === String(process.pid)) continue;
      const sched = schedOf(readFileSync(`/proc/self/task/${tid}/stat`, "utf8"));
      if (!spared.test(sched.name)) each(Number(tid), sched);
    }
  } catch {
    // Not Linux, or a thread ended while we looked: the next round catches up.
  }
}
