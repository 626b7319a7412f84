import {
  createAlertDeliverer,
  createAlertRuntime,
  type AlertDeliverer,
  type AlertDependencies,
  type AlertRuntime,
  type AlertRuntimeOptions,
  type RaiseAlertInput,
} from '../../../src/alerts/index.ts';
import { loadConfig, secretValues } from '../../../src/config/index.ts';
import type { TransferRecord } from '../../../src/ledger/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { freshDatabase, type TestDatabase } from '../../support/test-database.ts';

export interface AlertHarness {
  readonly database: TestDatabase;
  readonly runtime: AlertRuntime;
  readonly deps: AlertDependencies;
  /** Not started: the test runs its passes with `runOnce`. */
  readonly deliverer: AlertDeliverer;
  /** Every log line, as written (secrets scrubbed as in production). */
  readonly logs: string[];
  /** Moves the alerts' clock. */
  advance(ms: number): void;
  cleanup(): Promise<void>;
}

/** A migrated database, the alert runtime built from `env` like the daemon's, and a test clock. */
export async function alertHarness(
  env: Record<string, string>,
  options: Partial<AlertRuntimeOptions> = {},
): Promise<AlertHarness> {
  const database = await freshDatabase();
  const config = loadConfig(env);
  const logs: string[] = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    secrets: secretValues(config),
    destination: { write: (line: string) => void logs.push(line) },
  });
  let clock = Date.parse('2030-01-10T10:00:00.000Z');
  const runtime = createAlertRuntime(config.alerts, logger, {
    now: () => new Date(clock),
    ...options,
    environment: options.environment ?? 'sandbox',
  });
  const deps = { db: database.db, alerts: runtime };
  const deliverer = createAlertDeliverer(deps);
  return {
    database,
    runtime,
    deps,
    deliverer,
    logs,
    advance(ms) {
      clock += ms;
    },
    async cleanup() {
      await deliverer.stop();
      await runtime.close();
      await database.cleanup();
    },
  };
}

/** A failed transfer as the mirror holds it: what the follow-up job looks up. */
export function failedTransfer(overrides: Partial<TransferRecord> = {}): TransferRecord {
  return {
    kind: 'transfer',
    id: 'tr_alert0001',
    status: 'failed',
    upstreamStatus: 'failed',
    amount: 250_000,
    currency: 'XOF',
    failureCode: 'recipient_not_found',
    failureMessage: 'The recipient account does not exist',
    createdAt: '2030-01-10T09:59:00.000Z',
    updatedAt: '2030-01-10T10:00:00.000Z',
    firstSeenAt: '2030-01-10T09:59:00.000Z',
    lastSyncedAt: '2030-01-10T10:00:00.000Z',
    raw: {},
    merchantId: 'm_1',
    reference: 'payout-42',
    mode: 'sandbox',
    isIrt: false,
    isDelegated: false,
    fees: [],
    destination: {
      type: 'mobile_money',
      country: 'SN',
      number: '+221770009901',
      provider: 'orange_money',
    },
    description: '',
    providerReference: '',
    ...overrides,
  };
}

export const stuckTransfer = (id: string): RaiseAlertInput => ({
  kind: 'transfer_stuck',
  severity: 'critical',
  subject: id,
  title: `Transfer ${id} has been pending for 3 hours`,
  detail: { transferId: id, pendingSince: '2030-01-10T07:00:00.000Z' },
  resolvesWhen: 'when the transfer settles',
});
