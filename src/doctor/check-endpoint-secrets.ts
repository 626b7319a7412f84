import type { Config } from '../config/index.ts';
import { secretsAtRest } from '../relay/index.ts';
import { failed, passed, type CheckResult } from './check-result.ts';
import { readExistingDatabase } from './read-existing-database.ts';

/**
 * How the relay endpoint secrets are stored (docs/relay.md, "Secrets at rest"): plain text in
 * live, or sealed with a key PAYSYNC_SECRETS_KEY lacks, fails. Undefined when there are no
 * endpoints or the database cannot be read (the database check says why).
 */
export async function checkEndpointSecrets(config: Config): Promise<CheckResult | undefined> {
  return readExistingDatabase(config.databaseUrl, async (db) => {
    const state = await secretsAtRest(db, config.relay.secretsKeys);
    if (state.endpoints === 0) return undefined;
    if (state.missingKeys.length > 0) {
      return failed(
        'secrets',
        `endpoint secrets sealed with key ${state.missingKeys.map((id) => `"${id}"`).join(', ')}, which PAYSYNC_SECRETS_KEY does not hold: their deliveries fail`,
        'put the key back in PAYSYNC_SECRETS_KEY (after the current one), then run `paysync endpoints reseal-secrets`',
      );
    }
    if (state.plain > 0 && config.environment === 'live') {
      return failed(
        'secrets',
        `${state.plain} of ${state.endpoints} endpoint secrets stored in plain text`,
        config.relay.secretsKeys.length === 0
          ? 'set PAYSYNC_SECRETS_KEY (docs/relay.md, "Secrets at rest"), then run `paysync endpoints reseal-secrets`'
          : 'run `paysync endpoints reseal-secrets`',
      );
    }
    const notes = [
      state.plain > 0 ? `${state.plain} in plain text (sandbox)` : '',
      state.olderKey > 0 ? `${state.olderKey} sealed with an older key (run reseal-secrets)` : '',
    ].filter((note) => note !== '');
    return passed(
      'secrets',
      `${state.endpoints} endpoint secrets${notes.length > 0 ? `: ${notes.join(', ')}` : ' sealed with the current key'}`,
    );
  });
}
