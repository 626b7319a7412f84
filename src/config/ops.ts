import {
  bindAddress,
  optionalText,
  portNumber,
  positiveInt,
  trueOrFalse,
  type Parsed,
} from './fields.ts';

// The ops port: metrics, the ops API, the dashboard and bull-board (docs/ops.md,
// docs/security.md). It is private by default; the receiver's port serves only webhooks and
// health.

/** Where `start` and `serve` answer `/metrics`, the ops API and the dashboard by default. */
export const DEFAULT_OPS_PORT = 9465;
/** Loopback: only this machine (an SSH tunnel, a local Prometheus) reaches the ops port. */
export const DEFAULT_OPS_HOST = '127.0.0.1';
/** The shortest admin, tenant or scrape token `live` accepts (`openssl rand -hex 32` gives 64). */
export const MIN_LIVE_TOKEN_LENGTH = 32;

const tokenList = optionalText;

export const OPS_VARIABLES = {
  /**
   * Bearer token(s) for the ops API and dashboard, comma-separated for rotation (secret). In
   * `live` each must be at least 32 characters. Unset: the ops API and dashboard are off (their
   * routes answer 404); `/metrics` is still served on the ops port.
   */
  PAYSYNC_ADMIN_TOKEN: tokenList,
  /**
   * Port of metrics, the ops API and the dashboard, in a process with the receiver (`start`,
   * `serve`). It must differ from `PAYSYNC_PORT`. 0 picks a free port (logged).
   * @defaultValue 9465
   */
  PAYSYNC_OPS_PORT: portNumber(DEFAULT_OPS_PORT),
  /**
   * Interface the ops port binds to; also the metrics port of `work` and `schedule`. Anything
   * but a loopback address opens metrics, the ops API and the dashboard to the network: then
   * `/metrics` wants the admin token or `PAYSYNC_METRICS_TOKEN`. @defaultValue `127.0.0.1`
   */
  PAYSYNC_OPS_HOST: bindAddress(DEFAULT_OPS_HOST),
  /**
   * Bearer token(s) that may read `/metrics` and nothing else, comma-separated (secret). Only
   * asked for when the ops port is open beyond loopback (`PAYSYNC_OPS_HOST`). @defaultValue none
   */
  PAYSYNC_METRICS_TOKEN: tokenList,
  /**
   * The deployment reaches the dashboard over https (a proxy ending TLS): the session cookie
   * is `Secure` and named `__Host-paysync_ops`. @defaultValue false
   */
  PAYSYNC_OPS_HTTPS: trueOrFalse('false'),
  /** Minutes a dashboard session lives without a request. @defaultValue 30 */
  PAYSYNC_OPS_SESSION_IDLE_MINUTES: positiveInt(30, 7 * 24 * 60),
  /** Hours a dashboard session lives at most, however busy. @defaultValue 12 */
  PAYSYNC_OPS_SESSION_MAX_HOURS: positiveInt(12, 24 * 30),
  /**
   * bull-board's actions (pause, retry, clean, add, promote): off, the board is read-only.
   * On, each action still wants a same-origin request or the dashboard's CSRF token.
   * @defaultValue false
   */
  PAYSYNC_QUEUE_BOARD_ACTIONS: trueOrFalse('false'),
  /**
   * Failed authentications (a wrong bearer token, login, session or scrape token) one client
   * address may make in a minute; the next request from it gets 429 with `Retry-After` until
   * the minute ends. @defaultValue 5
   */
  PAYSYNC_AUTH_FAILURES_PER_MINUTE: positiveInt(5, 10_000),
};

export interface OpsSettings {
  /** Every accepted admin token; empty turns the ops API and dashboard off. */
  readonly adminTokens: readonly string[];
  /** The ops port (metrics, ops API, dashboard) of a process with the receiver; 0: any free one. */
  readonly port: number;
  /** The interface the ops port (and the metrics port of `work`, `schedule`) binds to. */
  readonly host: string;
  /** True when {@link host} is not a loopback address: `/metrics` then wants a token. */
  readonly public: boolean;
  /** Tokens that may read `/metrics` only. */
  readonly metricsTokens: readonly string[];
  /** Behind https: the session cookie is `Secure` and `__Host-` prefixed. */
  readonly https: boolean;
  /** A dashboard session ends after this long without a request, in ms. */
  readonly sessionIdleMs: number;
  /** A dashboard session ends this long after its login, in ms. */
  readonly sessionMaxMs: number;
  /** bull-board's actions are open (still behind same-origin or CSRF). */
  readonly queueBoardActions: boolean;
  /** Failed authentications per client address and minute before 429. */
  readonly authFailuresPerMinute: number;
}

const splitTokens = (value: string | undefined): readonly string[] =>
  Object.freeze(
    (value ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );

/** Loopback addresses: 127.0.0.0/8, ::1, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function opsSettings(e: Parsed<typeof OPS_VARIABLES>): OpsSettings {
  return Object.freeze({
    adminTokens: splitTokens(e.PAYSYNC_ADMIN_TOKEN),
    port: e.PAYSYNC_OPS_PORT,
    host: e.PAYSYNC_OPS_HOST,
    public: !isLoopbackHost(e.PAYSYNC_OPS_HOST),
    metricsTokens: splitTokens(e.PAYSYNC_METRICS_TOKEN),
    https: e.PAYSYNC_OPS_HTTPS,
    sessionIdleMs: e.PAYSYNC_OPS_SESSION_IDLE_MINUTES * 60_000,
    sessionMaxMs: e.PAYSYNC_OPS_SESSION_MAX_HOURS * 3_600_000,
    queueBoardActions: e.PAYSYNC_QUEUE_BOARD_ACTIONS,
    authFailuresPerMinute: e.PAYSYNC_AUTH_FAILURES_PER_MINUTE,
  });
}

/**
 * In `live`, the first token shorter than {@link MIN_LIVE_TOKEN_LENGTH}, with its variable;
 * undefined when every token is long enough (or in sandbox).
 */
export function weakLiveToken(
  environment: string,
  tokens: Readonly<Record<string, readonly string[]>>,
): { readonly variable: string; readonly message: string } | undefined {
  if (environment !== 'live') return undefined;
  for (const [variable, values] of Object.entries(tokens)) {
    if (values.some((token) => token.length < MIN_LIVE_TOKEN_LENGTH)) {
      return {
        variable,
        message: `${variable} is too short for live: each token needs at least ${MIN_LIVE_TOKEN_LENGTH} characters → make one with: openssl rand -hex 32`,
      };
    }
  }
  return undefined;
}
