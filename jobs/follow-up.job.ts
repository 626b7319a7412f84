import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { FollowUpJobData } from '../src/queues/index.ts';

/**
 * `follow-up`: alerts and receipts arrive with a later issue. Until then each is logged so
 * the queue drains and an operator sees what would have been sent.
 */
export function followUpJob(logger: Logger) {
  return async (job: Job<FollowUpJobData>): Promise<string> => {
    const data = job.data;
    if (data.type === 'alert') {
      logger.warn(
        { alert: data },
        `alert: ${data.reason.replace('_', ' ')} (${data.kind} ${data.id})`,
      );
    } else {
      logger.info({ receipt: data }, `receipt due: ${data.kind} ${data.id} ${data.status}`);
    }
    return 'logged';
  };
}
