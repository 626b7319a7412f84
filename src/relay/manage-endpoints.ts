import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Environment, RelaySettings, SecretsKey } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import {
  deleteEndpointRows,
  endpointView,
  findEndpointRow,
  insertEndpointRow,
  listEndpointRows,
  updateEndpointRow,
  type EndpointView,
} from './endpoint.repository.ts';
import {
  endpointHealth,
  recentAttempts,
  type AttemptView,
  type EndpointHealth,
} from './endpoint-health-view.ts';
import { EndpointError } from './endpoint-error.ts';
import { endpointUrlProblem } from './endpoint-url.ts';
import { eventPatternProblem, RELAY_EVENT_TYPES } from './event-types.ts';
import { notifyRelay } from './relay-signal.ts';
import { openSecret, sealedKeyId, sealedWithCurrentKey, sealSecret } from './secret-box.ts';
import { newEndpointSecret } from './sign.ts';
import type { RelayEndpointRow } from './relay.tables.ts';

/** How long the secret before a rotation keeps signing and verifying. */
export const PREVIOUS_SECRET_VALID_MS = 86_400_000;

/** Attempts `show` lists. */
export const SHOWN_ATTEMPTS = 20;

/** What management needs: the database, the clock's reading, and the rules for URLs. */
export interface EndpointContext {
  readonly db: Kysely<Database>;
  readonly now: Date;
  readonly environment: Environment;
  readonly relay: Pick<RelaySettings, 'allowHttp' | 'allowedHosts'> & SecretsKeys;
}

/** The keys that seal a new endpoint secret (PAYSYNC_SECRETS_KEY); none: see sealNewSecret. */
export interface SecretsKeys {
  /** @defaultValue [] */
  readonly secretsKeys?: readonly SecretsKey[];
}

/**
 * A new secret as it is stored: sealed with the current key; in sandbox without a key, as it
 * is; in live without a key, refused (a live secret is never stored in plain text).
 */
function sealNewSecret(secret: string, environment: Environment, keys: SecretsKeys): string {
  const secretsKeys = keys.secretsKeys ?? [];
  if (secretsKeys.length === 0 && environment === 'live') {
    throw new EndpointError({ code: 'secrets_key_missing', purpose: 'store' });
  }
  return sealSecret(secret, secretsKeys);
}

const ENDPOINT_ID = /^ep_[0-9a-f]{20}$/;
const MAX_DESCRIPTION = 500;

/** True when `value` has the form of an endpoint id (`ep_` and 20 hex digits). */
export function isEndpointId(value: string): boolean {
  return ENDPOINT_ID.test(value);
}

/** The endpoint's row, or EndpointError `endpoint_id_invalid` or `endpoint_not_found`. */
export async function requireEndpoint(
  db: Kysely<Database>,
  endpointId: string,
): Promise<RelayEndpointRow> {
  if (!isEndpointId(endpointId))
    throw new EndpointError({ code: 'endpoint_id_invalid', endpointId });
  const row = await findEndpointRow(db, endpointId);
  if (!row) throw new EndpointError({ code: 'endpoint_not_found', endpointId });
  return row;
}

/**
 * Refuses the first pattern paysync cannot match (EndpointError `event_pattern_unknown`, naming
 * the request's `input`: the subscription's `events` or a redelivery's `types`).
 */
export function refuseUnknownPatterns(
  patterns: readonly string[],
  input: 'events' | 'types',
): void {
  const pattern = patterns.find((candidate) => eventPatternProblem(candidate) !== undefined);
  if (pattern === undefined) return;
  const known = RELAY_EVENT_TYPES.filter((type) => type !== 'ping');
  throw new EndpointError({ code: 'event_pattern_unknown', input, pattern, known });
}

/** Checks the subscription patterns; none (or only `*`) means every type: null. */
export function checkedPatterns(patterns: readonly string[] | undefined): string[] | null {
  const cleaned = (patterns ?? []).map((pattern) => pattern.trim()).filter(Boolean);
  refuseUnknownPatterns(cleaned, 'events');
  if (cleaned.length === 0 || cleaned.includes('*')) return null;
  return [...new Set(cleaned)];
}

export interface AddEndpointRequest {
  readonly url: string;
  /** Type patterns; none: every type. */
  readonly events?: readonly string[];
  readonly description?: string;
}

/** The new endpoint and its secret: the one time the secret is handed out. */
export interface AddedEndpoint {
  readonly endpoint: EndpointView;
  readonly secret: string;
}

/**
 * Adds an endpoint: enabled, subscribed to `events` (all types when none), with a new
 * `whsec_…` secret. It gets the events emitted from now on; older ones only by a redelivery.
 */
export async function addEndpoint(
  ctx: EndpointContext,
  request: AddEndpointRequest,
): Promise<AddedEndpoint> {
  const url = request.url.trim();
  const urlProblem = endpointUrlProblem(url, {
    environment: ctx.environment,
    allowHttp: ctx.relay.allowHttp,
    allowedHosts: ctx.relay.allowedHosts,
  });
  if (urlProblem) throw new EndpointError(urlProblem);
  const events = checkedPatterns(request.events);
  const description = request.description?.trim() || null;
  if (description && description.length > MAX_DESCRIPTION) {
    throw new EndpointError({
      code: 'description_too_long',
      length: description.length,
      max: MAX_DESCRIPTION,
    });
  }
  const secret = newEndpointSecret();
  const row = await insertEndpointRow(ctx.db, {
    endpointId: `ep_${randomBytes(10).toString('hex')}`,
    url,
    description,
    events,
    secret: sealNewSecret(secret, ctx.environment, ctx.relay),
    at: ctx.now.toISOString(),
  });
  return { endpoint: endpointView(row), secret };
}

/** An endpoint and how its deliveries go. */
export interface EndpointWithHealth {
  readonly endpoint: EndpointView;
  readonly health: EndpointHealth;
}

/** Every endpoint, oldest first, with its health. */
export async function listEndpoints(
  db: Kysely<Database>,
  now: Date,
): Promise<EndpointWithHealth[]> {
  const rows = await listEndpointRows(db);
  const health = await endpointHealth(db, rows, now);
  return rows.map((row) => ({ endpoint: endpointView(row), health: health.get(row.id)! }));
}

/** One endpoint, its health and its last {@link SHOWN_ATTEMPTS} attempts. */
export interface EndpointDetail extends EndpointWithHealth {
  readonly attempts: readonly AttemptView[];
}

export async function showEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  now: Date,
): Promise<EndpointDetail> {
  const row = await requireEndpoint(db, endpointId);
  const health = await endpointHealth(db, [row], now);
  const attempts = await recentAttempts(db, row.id, { limit: SHOWN_ATTEMPTS, offset: 0 });
  return { endpoint: endpointView(row), health: health.get(row.id)!, attempts };
}

/** An endpoint's attempts, newest first, a page at a time. */
export async function endpointAttempts(
  db: Kysely<Database>,
  endpointId: string,
  page: { readonly limit: number; readonly offset: number },
): Promise<AttemptView[]> {
  const row = await requireEndpoint(db, endpointId);
  return recentAttempts(db, row.id, page);
}

/**
 * Disables an endpoint (reason `operator`): it gets no new deliveries, and its pending ones
 * wait, unattempted, until it is enabled. Disabling a disabled one changes nothing.
 */
export async function disableEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  now: Date,
): Promise<EndpointView> {
  const row = await requireEndpoint(db, endpointId);
  if (row.status !== 'disabled') {
    const at = now.toISOString();
    await updateEndpointRow(
      db,
      row.id,
      { status: 'disabled', disabled_reason: 'operator', disabled_at: at },
      at,
    );
  }
  return endpointView((await findEndpointRow(db, endpointId))!);
}

/**
 * Enables an endpoint: its failing run is forgotten, and its pending deliveries are due now
 * (the deliverer is woken). Events emitted while it was disabled were not queued for it:
 * redeliver them (`paysync endpoints redeliver`).
 */
export async function enableEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  now: Date,
): Promise<{ endpoint: EndpointView; pending: number }> {
  const row = await requireEndpoint(db, endpointId);
  const at = now.toISOString();
  const pending = await db.transaction().execute(async (trx) => {
    await updateEndpointRow(
      trx,
      row.id,
      { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null },
      at,
    );
    const due = await trx
      .updateTable('relay_deliveries')
      .set({ next_attempt_at: at, claimed_until: null })
      .where('endpoint_id', '=', row.id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(due.numUpdatedRows);
  });
  if (pending > 0) notifyRelay();
  return { endpoint: endpointView((await findEndpointRow(db, endpointId))!), pending };
}

/** Deletes an endpoint with its deliveries and their attempts, in one transaction. */
export async function deleteEndpoint(
  db: Kysely<Database>,
  endpointId: string,
): Promise<EndpointView> {
  const row = await requireEndpoint(db, endpointId);
  await db.transaction().execute((trx) => deleteEndpointRows(trx, row.id));
  return endpointView(row);
}

/**
 * A new secret for the endpoint, handed out this once. The one it replaces keeps signing (both
 * signatures are sent) for {@link PREVIOUS_SECRET_VALID_MS}, so the consumer can switch without
 * refusing a delivery; a secret from an earlier rotation stops at once.
 */
export async function rotateEndpointSecret(
  db: Kysely<Database>,
  endpointId: string,
  now: Date,
  sealing: SecretsKeys & { readonly environment: Environment },
): Promise<{ endpoint: EndpointView; secret: string; previousValidUntil: string }> {
  const row = await requireEndpoint(db, endpointId);
  const secret = newEndpointSecret();
  const stored = sealNewSecret(secret, sealing.environment, sealing);
  const previousValidUntil = new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS).toISOString();
  await updateEndpointRow(
    db,
    row.id,
    { secret: stored, previous_secret: row.secret, previous_secret_expires_at: previousValidUntil },
    now.toISOString(),
  );
  return {
    endpoint: endpointView((await findEndpointRow(db, endpointId))!),
    secret,
    previousValidUntil,
  };
}

/** What {@link resealEndpointSecrets} did. */
export interface ResealedSecrets {
  /** Endpoints whose secret (or previous secret) was re-sealed with the current key. */
  readonly resealed: number;
  /** Endpoints already sealed with it. */
  readonly current: number;
  /** The current key's id. */
  readonly keyId: string;
}

/**
 * Seals every endpoint secret with the current key of PAYSYNC_SECRETS_KEY: plain-text rows
 * (written before encryption, or in sandbox without a key) and rows sealed with an older key.
 * Run after adding a key (docs/relay.md, "Secrets at rest"); idempotent. One transaction, so a
 * failure (a row no key opens) changes nothing.
 */
export async function resealEndpointSecrets(
  db: Kysely<Database>,
  keys: readonly SecretsKey[],
  now: Date,
): Promise<ResealedSecrets> {
  const current = keys[0];
  if (!current) {
    throw new EndpointError({ code: 'secrets_key_missing', purpose: 'reseal' });
  }
  return db.transaction().execute(async (trx) => {
    let resealed = 0;
    let kept = 0;
    for (const row of await listEndpointRows(trx)) {
      const stale = (value: string | null) => value !== null && !sealedWithCurrentKey(value, keys);
      if (!stale(row.secret) && !stale(row.previous_secret)) {
        kept += 1;
        continue;
      }
      const reseal = (value: string) =>
        sealedWithCurrentKey(value, keys) ? value : sealSecret(openSecret(value, keys), keys);
      await updateEndpointRow(
        trx,
        row.id,
        {
          secret: reseal(row.secret),
          previous_secret: row.previous_secret === null ? null : reseal(row.previous_secret),
        },
        now.toISOString(),
      );
      resealed += 1;
    }
    return { resealed, current: kept, keyId: current.id };
  });
}

/** How the endpoint secrets are stored, for `paysync doctor`. */
export interface SecretsAtRest {
  readonly endpoints: number;
  /** Endpoints with a secret (or previous secret) in plain text. */
  readonly plain: number;
  /** Endpoints sealed, but not (all) with the current key: a rotation to finish. */
  readonly olderKey: number;
  /** Key ids that sealed a secret and that PAYSYNC_SECRETS_KEY does not hold. */
  readonly missingKeys: readonly string[];
}

export async function secretsAtRest(
  db: Kysely<Database>,
  keys: readonly SecretsKey[],
): Promise<SecretsAtRest> {
  const rows = await listEndpointRows(db);
  let plain = 0;
  let olderKey = 0;
  const missing = new Set<string>();
  for (const row of rows) {
    const values = [row.secret, row.previous_secret].filter((v): v is string => v !== null);
    const sealedIds = values.map(sealedKeyId);
    if (sealedIds.some((id) => id === undefined)) plain += 1;
    else if (!values.every((value) => sealedWithCurrentKey(value, keys))) olderKey += 1;
    for (const id of sealedIds) {
      if (id !== undefined && !keys.some((key) => key.id === id)) missing.add(id);
    }
  }
  return { endpoints: rows.length, plain, olderKey, missingKeys: [...missing].sort() };
}
