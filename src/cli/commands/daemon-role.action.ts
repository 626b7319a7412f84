import type { DaemonRole } from '../../daemon/index.ts';
import { commandContext } from '../context.ts';

/**
 * What `start`, `work` and `schedule` share: load the config, build the roles' components,
 * and run them until SIGTERM/SIGINT. A refusal to start is one line and exit 1.
 */
export async function runDaemonRoles(command: string, roles: readonly DaemonRole[]): Promise<void> {
  const { config, logger } = commandContext(command);
  // Loaded here, not at the top, so `paysync --help` stays fast.
  const { runDaemon } = await import('../../daemon/index.ts');
  // A StartupError is reported by the CLI's error boundary as one line, exit 1.
  await runDaemon({ config, logger, roles });
}
