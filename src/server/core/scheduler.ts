// Background jobs that act on account clocks (expiry, scheduled sends, processing, retries).
// Each job runs on an interval and again, to completion, whenever a clock is moved.

export type Job = () => Promise<void>;

export interface Scheduler {
  register(name: string, job: Job): void;
  /** Runs every job once, in registration order; concurrent callers share one pass. */
  runAll(): Promise<void>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createScheduler(onError: (name: string, error: unknown) => void): Scheduler {
  const jobs: Array<{ name: string; job: Job }> = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  async function pass(): Promise<void> {
    for (const { name, job } of jobs) {
      try {
        await job();
      } catch (error) {
        onError(name, error);
      }
    }
  }

  async function runAll(): Promise<void> {
    if (running) {
      // A pass is under way: make sure another follows it, so the caller sees its own changes.
      again = true;
      while (running) await running;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again);
    })();
    try {
      await running;
    } finally {
      running = undefined;
    }
  }

  return {
    register(name, job) {
      jobs.push({ name, job });
    },
    runAll,
    start(intervalMs) {
      timer = setInterval(() => void runAll(), intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      while (running) await running;
    },
  };
}
