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
  /**
   * One Redis (`redis://`, `rediss://`), or the master a set of sentinels names
   * (`redis+sentinel://[user:password@]host[:port][,host[:port]…]/master-name[/db]`, see
   * docs/operations.md, "Redis Sentinel"). @defaultValue `redis://127.0.0.1:6379`
   */
  PAYSYNC_REDIS_URL: z
    .string()
    .trim()
    .default('redis://127.0.0.1:6379')
    .refine((value) => /^(rediss?|redis\+sentinel):\/\/.+/.test(value), {
      message:
        'must be a redis://, rediss:// or redis+sentinel:// URL, for example redis://127.0.0.1:6379 or redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster',
      abort: true,
    })
    .superRefine((value, context) => {
      const problem = isSentinelUrl(value)
        ? readSentinelUrl(value).problem
        : redisUrlProblem(value);
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

/** One sentinel's address. */
export interface SentinelAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * A `redis+sentinel://` URL, read: the sentinels to ask, in order, the name they know the master
 * by, and what to present to the master (its user, password and database). The sentinels
 * themselves are asked without a password.
 */
export interface RedisSentinelTarget {
  readonly sentinels: readonly SentinelAddress[];
  readonly masterName: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly db: number;
}

/** The port a sentinel listens on unless the URL says otherwise. */
export const DEFAULT_SENTINEL_PORT = 26_379;

const SENTINEL_FORM =
  'use redis+sentinel://[user:password@]host[:port][,host[:port]…]/master-name[/db], for example redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster';

/** Whether `url` names sentinels and a master rather than one Redis. */
export function isSentinelUrl(url: string): boolean {
  return /^redis\+sentinel:\/\//i.test(url);
}

function decodedPart(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** One `host[:port]` of the sentinel list (an IPv6 host in brackets), or why it is not one. */
function readSentinelAddress(text: string): SentinelAddress | string {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]\s]+)(?::(\d*))?$/i.exec(text);
  if (!match) {
    return `has sentinel "${text}", which is not host or host:port: ${SENTINEL_FORM}`;
  }
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
  if (match[2] === undefined) return { host, port: DEFAULT_SENTINEL_PORT };
  const port = Number(match[2]);
  if (match[2] === '' || port < 1 || port > 65_535) {
    return `has sentinel "${text}" whose port is not 1 to 65535: ${SENTINEL_FORM}`;
  }
  return { host, port };
}

/**
 * Reads `redis+sentinel://[user:password@]host[:port][,host[:port]…]/master-name[/db]`: the
 * target, or the problem (the words after `PAYSYNC_REDIS_URL="…" is invalid: `). The password
 * is what lies between the first `:` and the last `@` before the first `/`, as in a
 * `redis://` URL; percent-encoded parts are decoded.
 */
export function readSentinelUrl(
  url: string,
):
  | { readonly target: RedisSentinelTarget; readonly problem?: never }
  | { readonly problem: string; readonly target?: never } {
  const rest = url.slice(url.indexOf('://') + 3);
  const authorityEnd = rest.search(/[/?#]/);
  if (authorityEnd !== -1 && rest.indexOf('@', authorityEnd) !== -1) {
    // A password with an unencoded / ? or #: say so without echoing any part of it.
    return {
      problem: `has an @ after the first / ? or # (a password split there): ${ENCODE_PASSWORD_HINT}`,
    };
  }
  if (/[?#]/.test(rest)) return { problem: `takes no ?options or #fragment: ${SENTINEL_FORM}` };
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? undefined : authority.slice(0, at);
  const hosts = at === -1 ? authority : authority.slice(at + 1);
  let username: string | undefined;
  let password: string | undefined;
  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    const user = decodedPart(colon === -1 ? credentials : credentials.slice(0, colon));
    const secret = colon === -1 ? '' : decodedPart(credentials.slice(colon + 1));
    if (user === undefined || secret === undefined) {
      return {
        problem: `has a user or password that is not percent-encoded right: ${ENCODE_PASSWORD_HINT}`,
      };
    }
    username = user === '' ? undefined : user;
    password = secret === '' ? undefined : secret;
  }
  if (hosts === '') return { problem: `names no sentinel: ${SENTINEL_FORM}` };
  const sentinels: SentinelAddress[] = [];
  for (const text of hosts.split(',')) {
    const address = readSentinelAddress(text.trim());
    if (typeof address === 'string') return { problem: address };
    sentinels.push(address);
  }
  const [name = '', database, ...extra] = path.split('/');
  const masterName = decodedPart(name) ?? '';
  if (masterName === '') {
    return {
      problem: `names no master: add the name the sentinels monitor it under (sentinel monitor <name> …) after the sentinels; ${SENTINEL_FORM}`,
    };
  }
  if (extra.length > 0 || (database !== undefined && !/^\d{1,5}$/.test(database))) {
    return {
      problem: `selects a database that is not a number after the master name (a password split at an unencoded /?): use …/${masterName}/0, or leave the database out, and ${ENCODE_PASSWORD_HINT}`,
    };
  }
  return {
    target: { sentinels, masterName, username, password, db: Number(database ?? 0) },
  };
}

/** The decoded password inside a database or Redis URL, or undefined: for the log scrubber. */
export function connectionUrlPassword(url: string): string | undefined {
  if (isSentinelUrl(url)) return readSentinelUrl(url).target?.password;
  const password = parseConnectionUrl(url)?.password;
  if (!password) return undefined;
  return decodedPart(password) ?? password;
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
