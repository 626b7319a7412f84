import { pino } from 'pino';
import { runSweep, type StreamSweepReport, type SweepRequest } from '../../../src/polling/index.ts';
import { recordScheduledRun, type RecordedRun } from '../../../src/runs/index.ts';
import {
  startSimulator,
  type RunningSimulator,
  type SimulatorOptions,
} from '../../../src/sim/index.ts';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
} from '../../../src/upstream/index.ts';
import { freshDatabase, type TestDatabase } from '../../support/test-database.ts';

export interface SweepFixture {
  readonly database: TestDatabase;
  readonly sim: RunningSimulator;
  readonly client: UpstreamClient;
  /** The simulator's clock, which the sweeps take as "now". */
  now(): Date;
  /** One scheduled sweep, recorded in scheduled_runs, as the `sweep` job runs it. */
  sweep(request?: SweepRequest, client?: UpstreamClient): Promise<RecordedRun<StreamSweepReport[]>>;
  cleanup(): Promise<void>;
}

/**
 * A fresh database, a simulator on a frozen clock (moved by the test, never slept on), and a
 * client; sweeps run on the simulator's time, as a deployment's clock and the service's agree.
 */
export async function createSweepFixture(
  options: { sim?: SimulatorOptions; client?: Partial<UpstreamClientOptions> } = {},
): Promise<SweepFixture> {
  const database = await freshDatabase();
  const sim = await startSimulator({
    freezeClock: true,
    startAt: new Date(Date.now() - 3_600_000),
    ...options.sim,
  });
  const client = createUpstreamClient({
    baseUrl: sim.url,
    ...sim.credentials,
    rps: 5000,
    concurrency: 16,
    timeoutMs: 60_000,
    now: () => new Date(),
    ...options.client,
  });
  const logger = pino({ level: 'silent' });
  const now = () => new Date(sim.control.now());
  let ticks = 0;
  return {
    database,
    sim,
    client,
    now,
    sweep(request = {}, sweepClient = client) {
      return recordScheduledRun(
        { db: database.db, logger, now },
        // The clock is frozen between moves: number the ticks so each is a slot of its own.
        { task: 'sweep', slot: `${now().toISOString()} #${(ticks += 1)}` },
        (run) =>
          runSweep(
            { db: database.db, upstream: sweepClient, logger, environment: 'sandbox', now },
            { perPage: 50, ...request },
            run,
          ),
      );
    },
    async cleanup() {
      await sim.stop().catch(() => undefined);
      await database.cleanup().catch(() => undefined);
    },
  };
}
