import type { Job } from 'bullmq';
import { raiseAlertFromFollowUp } from '../src/alerts/index.ts';
import type { FollowUpJobData } from '../src/queues/index.ts';
import type { JobContext } from './job-context.ts';

/**
 * `follow-up`: a thin dispatcher by type. Alerts go to src/alerts, which records them and
 * queues their deliveries; receipts are logged until their issue lands.
 */
export function followUpJob(context: Pick<JobContext, 'logger' | 'db' | 'alerts'>) {
  const { logger } = context;
  return async (job: Job<FollowUpJobData>): Promise<string> => {
    const data = job.data;
    if (data.type === 'alert') {
      if (!context.alerts) {
        logger.warn(
          { alert: data },
          `alert: ${data.reason.replace('_', ' ')} (${data.kind} ${data.id})`,
        );
        return 'logged';
      }
      const raised = await raiseAlertFromFollowUp({ db: context.db, alerts: context.alerts }, data);
      return `alert ${raised.alert.id} ${raised.outcome}`;
    } else {
      logger.info({ receipt: data }, `receipt due: ${data.kind} ${data.id} ${data.status}`);
    }
    return 'logged';
  };
}
