import type { Kysely } from 'kysely';
import type { AlertRuntime } from '../alerts/index.ts';
import type {
  BalanceSettings,
  ExpectationSettings,
  JanitorSettings,
  RelaySettings,
} from '../config/index.ts';
import type { Database } from '../db/index.ts';
import type { ExpectationContext } from '../expectations/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../queues/index.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import type { DashboardSessions } from './dashboard-sessions.ts';
import type { OpsFeatures } from './ops-features.ts';

/** What the ops API and dashboard need; the daemon builds it. */
export interface OpsDependencies {
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  /** The clock, resolved where the process is assembled: "today", the last hour, resolutions. */
  readonly now: Clock;
  /** Accepted admin tokens (at least one: with none, nothing is mounted). */
  readonly tokens: readonly string[];
  /** `live` or `sandbox`: snapshots and verdicts are kept per environment. */
  readonly environment: string;
  /** The books' time zone (`PAYSYNC_BOOKS_TIMEZONE`). */
  readonly timeZone: string;
  /** For replay, queue depths and bull-board; without them those parts say so. */
  readonly queues?: Queues;
  /** For acking and resolving alerts; without it those actions answer "not available". */
  readonly alerts?: AlertRuntime;
  /** The receipts archive (`config.receipts.dir`); without it receipts answer "not available". */
  readonly receiptsDir?: string;
  /** The export folder (`config.exports.dir`); without it exports answer "not available". */
  readonly exportsDir?: string;
  /** @defaultValue `opsFeatures({ alerts, receiptsDir, exports })` */
  readonly features?: OpsFeatures;
  /**
   * The relay's URL rules and timeout, for adding and testing endpoints.
   * @defaultValue {@link STRICT_RELAY_RULES}
   */
  readonly relay?: Pick<RelaySettings, 'allowHttp' | 'allowedHosts' | 'timeoutMs'> &
    Partial<Pick<RelaySettings, 'secretsKeys'>>;
  /**
   * PAYSYNC_EXPECTATIONS_ALL_EXPECTED for the matching that runs when expectations are loaded
   * over HTTP, and PAYSYNC_EXPECTATIONS_BREAK_VERDICT for a day's report computed on the spot,
   * so both agree with the CLI and the daemon. @defaultValue `off` and `['missing']`
   */
  readonly expectations?: Pick<ExpectationSettings, 'allExpected' | 'breakVerdict'>;
  /**
   * PAYSYNC_STUCK_*_AFTER: the SLAs a day's verdict is judged by, as `paysync report` and the
   * verdicts task judge it. @defaultValue the report's default SLAs
   */
  readonly janitor?: Pick<JanitorSettings, 'stuckAfterMs'>;
  /**
   * PAYSYNC_BALANCE_CRON and PAYSYNC_VERDICT_CRON: when a day's verdict will be stored, for the
   * Today page. @defaultValue their defaults, hourly and 20 past every hour
   */
  readonly balances?: Pick<BalanceSettings, 'cron' | 'verdictCron'>;
  /**
   * Behind https (`PAYSYNC_OPS_HTTPS`): the session cookie is `Secure` and named
   * `__Host-paysync_ops`. @defaultValue false
   */
  readonly secureCookie?: boolean;
  /**
   * The dashboard's sessions; one per process, shared by every tenant's dashboard.
   * @defaultValue sessions of this router's own, with their default expiries
   */
  readonly sessions?: DashboardSessions;
  /**
   * Counts failed authentications per client address and answers 429 past the limit; one per
   * process. @defaultValue a throttle of this router's own
   */
  readonly throttle?: AuthThrottle;
  /**
   * bull-board's actions (`PAYSYNC_QUEUE_BOARD_ACTIONS`); off, the board is read-only.
   * @defaultValue false
   */
  readonly queueBoardActions?: boolean;
  /**
   * One tenant's dashboard in a process serving several: its pages are served under
   * `/tenants/<tenant>` (the process's front strips the prefix) with the tenant switcher.
   * @defaultValue none: the dashboard of a process with one tenant, at `/`
   */
  readonly tenantDashboard?: TenantDashboardOptions;
}

/** See {@link OpsDependencies.tenantDashboard}. */
export interface TenantDashboardOptions {
  /** The tenant whose dashboard this is. */
  readonly tenant: string;
  /** The tenants a session (its cookie value) may see, for the switcher; this one among them. */
  readonly tenantsOf: (session: string) => readonly string[];
}

/** Without relay settings: https only in live, no internal address, 15 s. */
export const STRICT_RELAY_RULES = Object.freeze({
  allowHttp: false,
  allowedHosts: Object.freeze([] as string[]),
  timeoutMs: 15_000,
});

/** {@link OpsDependencies} with the defaults merged (see createOpsRouter). */
export type ResolvedOpsDependencies = OpsDependencies & {
  readonly features: OpsFeatures;
  readonly sessions: DashboardSessions;
  readonly throttle: AuthThrottle;
  readonly relay: NonNullable<OpsDependencies['relay']>;
};

/** The context the expectations component is called with, from the ops API or the dashboard. */
export function expectationContextOf(deps: OpsDependencies): ExpectationContext {
  return {
    environment: deps.environment,
    now: deps.now,
    ...(deps.expectations ? { allExpected: deps.expectations.allExpected } : {}),
  };
}
