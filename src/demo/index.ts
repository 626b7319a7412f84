/**
 * `paysync demo`: the simulator, the daemon and generated traffic in one process. Besides the
 * `sim` command, the only code outside tests that starts the simulator.
 */
export { DEMO_PACE, startDemo, type DemoOptions, type RunningDemo } from './start-demo.ts';
export type { DemoSummary, WebhookFlow } from './demo-summary.ts';
export {
  createDemoTraffic,
  type DemoTraffic,
  type DemoTrafficOptions,
  type TrafficCounts,
} from './demo-traffic.ts';
export type { RunningSimulator } from '../sim/index.ts';
