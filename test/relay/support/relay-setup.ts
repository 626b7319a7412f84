import { pino } from 'pino';
import { createAlertRuntime, listAlerts, relayEndpointAlerts } from '../../../src/alerts/index.ts';
import { loadConfig, type RelaySettings } from '../../../src/config/index.ts';
import {
  createRelayDeliverer,
  type RelayDeliverer,
  type RelayDelivererDeps,
} from '../../../src/relay/index.ts';
import { freshDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * A migrated database, a movable clock, a real alert runtime on it, and deliverers started on
 * them with short polls (the POST timeout given per test).
 */
export interface RelaySetup {
  readonly database: TestDatabase;
  now(): Date;
  /** Moves the clock and wakes every deliverer. */
  advance(ms: number): void;
  settings(overrides?: Partial<RelaySettings>): RelaySettings;
  startDeliverer(
    overrides?: Partial<RelaySettings>,
    deps?: Partial<RelayDelivererDeps>,
  ): Promise<RelayDeliverer>;
  alerts(): ReturnType<typeof listAlerts>;
  cleanup(): Promise<void>;
}

export const START = new Date('2026-11-20T10:00:00.000Z');

export async function createRelaySetup(): Promise<RelaySetup> {
  const database = await freshDatabase();
  let clock = START.getTime();
  const now = () => new Date(clock);
  const logger = pino({ level: process.env.RELAY_TEST_LOG ?? 'silent' });
  const config = loadConfig({});
  const runtime = createAlertRuntime(config.alerts, logger, { now, environment: 'sandbox' });
  const deliverers: RelayDeliverer[] = [];
  const settings = (overrides: Partial<RelaySettings> = {}): RelaySettings => ({
    ...config.relay,
    timeoutMs: 2000,
    ...overrides,
  });
  return {
    database,
    now,
    advance(ms) {
      clock += ms;
      for (const deliverer of deliverers) deliverer.wake();
    },
    settings,
    async startDeliverer(overrides = {}, deps = {}) {
      const deliverer = createRelayDeliverer({
        db: database.db,
        settings: settings(overrides),
        environment: 'sandbox',
        logger,
        now,
        health: relayEndpointAlerts({ db: database.db, alerts: runtime }),
        pollMs: 25,
        random: () => 0.5,
        ...deps,
      });
      deliverers.push(deliverer);
      await deliverer.start();
      return deliverer;
    },
    alerts: () => listAlerts(database.db, {}),
    async cleanup() {
      for (const deliverer of deliverers) await deliverer.stop().catch(() => undefined);
      await runtime.close().catch(() => undefined);
      await database.cleanup();
    },
  };
}
