import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import { isOutboxConsumed, markOutboxConsumed } from '../outbox/index.ts';
import type { AlertRuntime } from './alert-runtime.ts';
import { raiseAlertClaiming } from './raise-alert.ts';
import { alertOfFollowUp, type AlertFollowUp } from './raise-from-follow-up.ts';

/** What consuming an alert follow-up needs. */
export interface AlertFollowUpDependencies {
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  /** The clock, resolved where the process is assembled: stamps the row consumed. */
  readonly now: Clock;
  /** Sinks, routing and pacing; without it (as in some tests) the alert is only logged. */
  readonly alerts?: AlertRuntime;
}

/**
 * The consumer of an `alert` outbox row (the follow-up job's `alert`): raises its alert and
 * stamps the row consumed in the alert's own transaction, so a crash between the two can
 * neither lose the alert nor, on the retry, count it again. A row already consumed (handed out
 * twice) is done once: checked first, and again under the stamp inside the transaction. Returns
 * the job's result line.
 */
export async function consumeAlertFollowUp(
  deps: AlertFollowUpDependencies,
  payload: AlertFollowUp & { readonly outboxId?: number },
): Promise<string> {
  const { outboxId } = payload;
  if (outboxId !== undefined && (await isOutboxConsumed(deps.db, outboxId))) return 'already done';
  const { alerts } = deps;
  if (!alerts) {
    const { kind, id } = payload as { kind?: string; id?: string };
    deps.logger.warn(
      { alert: payload },
      `alert: ${payload.reason.replace('_', ' ')} (${kind} ${id})`,
    );
    // Nothing else is written, so the stamp alone is the consumer's whole transaction.
    if (outboxId !== undefined)
      await markOutboxConsumed(deps.db, outboxId, deps.now().toISOString());
    return 'logged';
  }
  const input = await alertOfFollowUp(deps, payload);
  const raised = await raiseAlertClaiming({ db: deps.db, alerts }, input, async (trx) =>
    outboxId === undefined ? true : markOutboxConsumed(trx, outboxId, alerts.now().toISOString()),
  );
  return raised ? `alert ${raised.alert.id} ${raised.outcome}` : 'already done';
}
