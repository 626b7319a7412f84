import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import type { Queues } from '../queues/index.ts';
import {
  clearCredentialFailure,
  readCredentialFailure,
  recordCredentialFailure,
  type CredentialFailure,
} from '../service-state/index.ts';
import { WrongCredentialsError, type UpstreamClient } from '../upstream/index.ts';
import { reasonOf } from '../error-reason.ts';

/** What start-up found out about credentials a worker once saw refused. */
export type CredentialCheck =
  | { readonly state: 'fine' }
  | { readonly state: 'resumed'; readonly was: CredentialFailure }
  | { readonly state: 'still_refused'; readonly failure: CredentialFailure }
  | { readonly state: 'unverified'; readonly failure: CredentialFailure; readonly reason: string };

/**
 * Stops paysync from hammering the service with credentials it refuses. On a 401 the failure
 * is recorded in the database (so `/readyz` and `doctor` of every process see it) and the
 * sync queue is paused for every worker of the deployment (a global BullMQ pause).
 */
export class CredentialGuard {
  private alarmRaised = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly queues: Queues,
    private readonly logger: Logger,
  ) {}

  /** Records the refusal and pauses syncing; logs once per process until resumed. */
  async refused(error: WrongCredentialsError, at: Date): Promise<void> {
    await recordCredentialFailure(this.db, {
      reason: `${error.status ?? 401} ${error.code}`,
      operation: error.operationId,
      at: at.toISOString(),
    });
    await this.queues.sync.pause();
    if (this.alarmRaised) return;
    this.alarmRaised = true;
    this.logger.error(
      { operation: error.operationId, status: error.status },
      'the payment service refused the credentials (401): syncing is paused for every worker; fix PAYSYNC_API_KEY / PAYSYNC_MERCHANT_ID / PAYSYNC_ENVIRONMENT and restart `paysync work`, which checks them and resumes',
    );
  }

  /**
   * At start-up: when a refusal is on record, one cheap credentialed call (`GET /balance`)
   * decides. Accepted: clear the record and resume the sync queue. Refused again: stay paused
   * and say so. Anything else (service down): stay paused; the next start tries again.
   */
  async verifyAtStartup(upstream: UpstreamClient): Promise<CredentialCheck> {
    const failure = await readCredentialFailure(this.db);
    if (!failure) return { state: 'fine' };
    try {
      await upstream.getBalance();
    } catch (error) {
      if (error instanceof WrongCredentialsError) {
        await this.queues.sync.pause();
        this.alarmRaised = true;
        this.logger.error(
          { since: failure.at, operation: failure.operation },
          'the payment service still refuses the credentials: syncing stays paused; fix PAYSYNC_API_KEY / PAYSYNC_MERCHANT_ID / PAYSYNC_ENVIRONMENT and restart',
        );
        return { state: 'still_refused', failure };
      }
      const reason = reasonOf(error);
      this.logger.warn(
        { since: failure.at, reason },
        'could not check the credentials refused earlier: syncing stays paused until a start-up can check them',
      );
      return { state: 'unverified', failure, reason };
    }
    await clearCredentialFailure(this.db);
    await this.queues.sync.resume();
    this.alarmRaised = false;
    this.logger.info(
      { since: failure.at },
      'the payment service accepts the credentials again: syncing resumed',
    );
    return { state: 'resumed', was: failure };
  }
}
