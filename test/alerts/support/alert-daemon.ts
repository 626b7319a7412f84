import type { AlertRuntimeOptions } from '../../../src/alerts/index.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { startDaemon, type RunningDaemon } from '../../../src/daemon/index.ts';
import { createLogger } from '../../../src/logger.ts';
import type { DaemonFixture } from '../../processing/support/daemon-fixture.ts';

/**
 * Starts every role of the fixture's daemon in this process with alert pacing made for tests
 * (a digest window of seconds, a fast deliverer poll). The fixture's cleanup stops it.
 */
export async function startAlertDaemon(
  fixture: DaemonFixture,
  env: Record<string, string>,
  alerts: Partial<AlertRuntimeOptions> & { pollMs?: number },
): Promise<RunningDaemon> {
  const config = loadConfig({ ...fixture.env, ...env });
  const destination = {
    write(line: string) {
      fixture.logs.push(line);
    },
  };
  const { secretValues } = await import('../../../src/config/index.ts');
  fixture.daemon = await startDaemon({
    config,
    logger: createLogger({
      level: 'info',
      pretty: false,
      destination,
      secrets: secretValues(config),
    }),
    roles: ['receiver', 'workers', 'scheduler'],
    queuePrefix: fixture.prefix,
    port: 0,
    host: '127.0.0.1',
    alerts,
  });
  return fixture.daemon;
}
