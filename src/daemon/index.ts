/**
 * The daemon's composition root: opens the database and Redis, checks them, and mounts the
 * doors (receiver, BullMQ jobs, cron table) for the roles a process runs.
 */
export { createDaemon, type Daemon, type DaemonOptions, type DaemonRole } from './create-daemon.ts';
export {
  createTenantsDaemon,
  type DaemonTenant,
  type TenantsDaemon,
  type TenantsDaemonOptions,
} from './create-tenants-daemon.ts';
export { setHeapGrowth, runDaemon, runTenantsDaemon } from './run-daemon.ts';
export {
  startDaemon,
  startTenantsDaemon,
  type RunningDaemon,
  type RunningTenantsDaemon,
} from './start-daemon.ts';
export { openCheckedRedis, openMigratedDatabase } from './preflight.ts';
export { StartupError } from '../lifecycle/index.ts';
export { tickSlot } from './scheduler.ts';
export { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from './worker-pool.ts';
