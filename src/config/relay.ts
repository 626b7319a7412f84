import { z } from 'zod';
import { duration, positiveInt, type Parsed } from './fields.ts';

// The relay of reconciled events to the merchant's endpoints (docs/relay.md).

const hostList = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return [] as string[];
    const hosts = value.split(',').map((host) => host.trim().toLowerCase());
    if (hosts.some((host) => host === '' || /[\s/]/.test(host))) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be host names, IP addresses or CIDR ranges separated by commas, for example 10.0.0.0/8,erp.internal',
      });
      return z.NEVER;
    }
    return hosts;
  });

const onOff = (fallback: 'true' | 'false') =>
  z
    .string()
    .trim()
    .toLowerCase()
    .default(fallback)
    .refine((value) => value === 'true' || value === 'false', { message: 'must be true or false' })
    .transform((value) => value === 'true');

export const RELAY_VARIABLES = {
  /** Allow `http://` endpoint URLs in `live` (sandbox always allows them). @defaultValue false */
  PAYSYNC_RELAY_ALLOW_HTTP: onOff('false'),
  /**
   * Hosts, addresses or CIDR ranges paysync may deliver to although they are loopback,
   * link-local or private (in `live` those are refused otherwise). @defaultValue none
   */
  PAYSYNC_RELAY_ALLOWED_HOSTS: hostList,
  /** How long one delivery POST may take before it counts as a timeout. @defaultValue `15s` */
  PAYSYNC_RELAY_TIMEOUT: duration('15s'),
  /** Deliveries in flight at once, per process. @defaultValue 16 */
  PAYSYNC_RELAY_CONCURRENCY: positiveInt(16, 1000),
  /** An endpoint failing this long is raised as an alert. @defaultValue `1h` */
  PAYSYNC_RELAY_FAILING_ALERT_AFTER: duration('1h'),
  /** An endpoint failing this long is disabled (and an alert raised). @defaultValue `5d` */
  PAYSYNC_RELAY_DISABLE_AFTER: duration('5d'),
};

export interface RelaySettings {
  /** @defaultValue false */
  readonly allowHttp: boolean;
  /** Lower-case hosts, addresses or CIDR ranges. @defaultValue [] */
  readonly allowedHosts: readonly string[];
  /** ms. @defaultValue 15000 */
  readonly timeoutMs: number;
  /** @defaultValue 16 */
  readonly concurrency: number;
  /** ms. @defaultValue one hour */
  readonly failingAlertAfterMs: number;
  /** ms. @defaultValue five days */
  readonly disableAfterMs: number;
}

export function relaySettings(e: Parsed<typeof RELAY_VARIABLES>): RelaySettings {
  return Object.freeze({
    allowHttp: e.PAYSYNC_RELAY_ALLOW_HTTP,
    allowedHosts: Object.freeze([...e.PAYSYNC_RELAY_ALLOWED_HOSTS]),
    timeoutMs: e.PAYSYNC_RELAY_TIMEOUT,
    concurrency: e.PAYSYNC_RELAY_CONCURRENCY,
    failingAlertAfterMs: e.PAYSYNC_RELAY_FAILING_ALERT_AFTER,
    disableAfterMs: e.PAYSYNC_RELAY_DISABLE_AFTER,
  });
}
