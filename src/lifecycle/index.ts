export {
  runUntilSignal,
  stopAll,
  type Component,
  type RunOptions,
  type Running,
  type StopFailure,
} from './lifecycle.ts';
export { freePort } from './free-port.ts';
export { StartupError, startupErrorFrom } from './startup-error.ts';
export { systemClock, type Clock } from './clock.ts';
