import type { Config } from '../config/index.ts';
import { checkCredentialRecord } from './check-credential-record.ts';
import { checkDatabase } from './check-database.ts';
import { checkEndpointSecrets } from './check-endpoint-secrets.ts';
import { checkRedis } from './check-redis.ts';
import { checkRuns } from './check-runs.ts';
import { checkService } from './check-service.ts';
import { checkUpkeep } from './check-upkeep.ts';
import { checkWebhooks } from './check-webhooks.ts';
import type { CheckResult } from './check-result.ts';

export type { CheckResult, CheckStatus } from './check-result.ts';
export { checkStatus } from './check-result.ts';
export {
  checkCredentialRecord,
  checkDatabase,
  checkEndpointSecrets,
  checkRedis,
  checkRuns,
  checkService,
  checkUpkeep,
  checkWebhooks,
};

/** Every check, run side by side; one failing never stops the others. */
/** `now`: the caller's clock reading, against which the scheduled runs' health is judged. */
export async function runDoctorChecks(config: Config, now: Date): Promise<CheckResult[]> {
  const results = await Promise.all([
    checkDatabase(config.databaseUrl),
    checkUpkeep(config.databaseUrl),
    checkRedis(config.redisUrl, 2000, config.redisEvictionCheck),
    checkService(config, Math.min(config.upstream.timeoutMs, 5000)),
    checkWebhooks(config, now, Math.min(config.upstream.timeoutMs, 5000)),
    checkCredentialRecord(config.databaseUrl),
    checkRuns(config, now),
    checkEndpointSecrets(config),
  ]);
  return results.filter((result): result is CheckResult => result !== undefined);
}
