import { z } from 'zod';

// The database and Redis connections (docs/configuration.md).

const DEFAULT_DATABASE_URL = 'sqlite:./data/paysync.db';

export const CONNECTION_VARIABLES = {
  /** `sqlite:<path>` or `postgres://…`. @defaultValue `sqlite:./data/paysync.db` */
  PAYSYNC_DATABASE_URL: z
    .string()
    .trim()
    .default(DEFAULT_DATABASE_URL)
    .refine((value) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value), {
      message: 'must be sqlite:<file path> or postgres://user@host:port/database',
      abort: true,
    })
    .superRefine((value, context) => {
      const problem = value.startsWith('sqlite:') ? undefined : postgresUrlProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  /** @defaultValue `redis://127.0.0.1:6379` */
  PAYSYNC_REDIS_URL: z
    .string()
    .trim()
    .default('redis://127.0.0.1:6379')
    .refine((value) => /^rediss?:\/\/.+/.test(value), {
      message: 'must be a redis:// or rediss:// URL, for example redis://127.0.0.1:6379',
      abort: true,
    })
    .superRefine((value, context) => {
      const problem = redisUrlProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  /**
   * What start does when Redis answers but refuses `CONFIG GET maxmemory-policy` (managed
   * Redis: ElastiCache, Memorystore, Azure Cache): `require` refuses to start, `skip` starts
   * with one warning, the operator having set noeviction in the provider's console. A policy
   * Redis does report is checked either way. See docs/operations.md. @defaultValue `require`
   */
  PAYSYNC_REDIS_EVICTION_CHECK: z
    .enum(['require', 'skip'], { error: 'must be one of: require, skip' })
    .default('require'),
};

/** `PAYSYNC_REDIS_EVICTION_CHECK`: whether start may go on without reading the policy. */
export type RedisEvictionCheck = 'require' | 'skip';

/** Variables whose values may hold a password inside a URL. */
export const URL_VARIABLES_WITH_PASSWORDS = ['PAYSYNC_DATABASE_URL', 'PAYSYNC_REDIS_URL'] as const;

/**
 * Reads a connection URL the way both drivers do: pg-connection-string first percent-encodes a
 * URL holding a space or a stray `%`, then pg and ioredis alike hand it to the WHATWG `URL`
 * parser. So the password is what lies between the first `:` and the LAST `@` of the
 * authority (which ends at the first `/`, `?` or `#`). Undefined when the driver would refuse it.
 */
export function parseConnectionUrl(url: string): URL | undefined {
  let text = url;
  if (/^postgres(ql)?:/i.test(text) && / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text)) {
    text = encodeURI(text).replace(/%25(\d\d)/g, '%$1');
  }
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** How to write a password the URL parser would otherwise split. */
const ENCODE_PASSWORD_HINT = 'percent-encode @ : / ? # in the password (%40 %3A %2F %3F %23)';

/** A port outside 1 to 65535, read from the text because the parser refuses the whole URL. */
function portProblem(url: string): string | undefined {
  const authority = url.slice(url.indexOf('://') + 3).split(/[/?#]/)[0]!;
  const port = /:(\d+)$/.exec(authority.slice(authority.lastIndexOf('@') + 1))?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) {
    return `has port ${port}: use a port from 1 to 65535`;
  }
  return undefined;
}

/** Why pg could not use this URL, or undefined. Checked at start-up, not at the first query. */
export function postgresUrlProblem(url: string): string | undefined {
  const port = portProblem(url);
  if (port) return port;
  const parsed = parseConnectionUrl(url) ?? parseConnectionUrl(url.replace('@/', '@___DUMMY___/'));
  if (!parsed) {
    return `is not a URL the PostgreSQL driver can read: check the port (1 to 65535) and ${ENCODE_PASSWORD_HINT}`;
  }
  if (/[@/]/.test(decodeURI(parsed.pathname.slice(1)))) {
    return `names a database with an @ or / in it, which means a password was split: ${ENCODE_PASSWORD_HINT}`;
  }
  return undefined;
}

/** Why ioredis could not use this URL, or undefined. */
export function redisUrlProblem(url: string): string | undefined {
  const port = portProblem(url);
  if (port) return port;
  const parsed = parseConnectionUrl(url);
  if (!parsed) {
    return `is not a URL Redis can be reached at: check the port (1 to 65535) and ${ENCODE_PASSWORD_HINT}`;
  }
  if (parsed.hostname === '')
    return 'has no host: use redis://host:port, for example redis://127.0.0.1:6379';
  const database = parsed.pathname.replace(/^\//, '');
  if (database !== '' && !/^\d{1,5}$/.test(database)) {
    return `selects a database that is not a number (a password split at an unencoded / ?): use redis://host:port/0, or leave the /number out, and ${ENCODE_PASSWORD_HINT}`;
  }
  return undefined;
}

/**
 * One URL with its password replaced by `***`, split where the driver splits it. When the
 * authority the driver sees holds no `@` but the text does further on (a password with an
 * unencoded `/`, `?` or `#`), everything from the first `:` to the last `@` is hidden: showing
 * a little too little beats showing part of a password.
 */
function hidePasswordInOneUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  const authorityEnd = url.slice(start).search(/[/?#]/);
  const authority = authorityEnd === -1 ? url.slice(start) : url.slice(start, start + authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    // Another URL may follow without a space between (`…/db,redis://:pw@cache`).
    const rest = url.slice(start + authority.length);
    const tail = rest.includes('://') ? hidePasswordInUrl(rest) : rest;
    const colon = authority.indexOf(':');
    if (colon === -1 || colon > at) return `${url.slice(0, start + authority.length)}${tail}`;
    return `${url.slice(0, start + colon + 1)}***${authority.slice(at)}${tail}`;
  }
  const lastAt = url.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (lastAt > start + authority.length && colon !== -1) {
    return `${url.slice(0, start + colon + 1)}***${url.slice(lastAt)}`;
  }
  return url;
}

/**
 * `postgres://u:secret@h/db` → `postgres://u:***@h/db`, for every URL in `text`, split the way
 * the drivers split them (see {@link parseConnectionUrl}), so a password holding `@`, `:` or
 * `/` is hidden whole. Leaves other text alone.
 */
export function hidePasswordInUrl(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi, hidePasswordInOneUrl);
}
