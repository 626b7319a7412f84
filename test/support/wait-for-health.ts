import type { ChildProcess } from 'node:child_process';
import { until } from './until.ts';

/**
 * Waits until a paysync process answers `GET <url>/healthz` with 2xx. With `child`, a child
 * that exits first ends the wait at once, naming its exit code or signal.
 */
export async function waitForHealth(
  url: string,
  options: { readonly child?: ChildProcess; readonly timeoutMs?: number } = {},
): Promise<void> {
  const { child, timeoutMs = 30_000 } = options;
  await until(
    async () => {
      if (child && (child.exitCode !== null || child.signalCode !== null)) {
        throw new Error(
          `paysync serve exited (${child.exitCode ?? child.signalCode}) before healthy`,
        );
      }
      // Not listening yet: fetch throws; keep asking.
      return fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    { message: `paysync serve to answer ${url}/healthz`, timeoutMs },
  );
}
