import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretsKey } from '../config/index.ts';

/**
 * Endpoint secrets at rest (docs/relay.md, "Secrets at rest"): AES-256-GCM with a key of
 * PAYSYNC_SECRETS_KEY, stored as `enc:v1:<key id>:<base64url of iv, tag and ciphertext>`. The key
 * id names the key that sealed it, so a rotation adds a key and re-seals at leisure; the prefix
 * and key id are authenticated too. A stored value without the prefix is a plain-text row from
 * before encryption (or from sandbox without a key) and is read as it is.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed secret names a key PAYSYNC_SECRETS_KEY does not hold, or does not open with it. */
export class SecretKeyError extends Error {
  override readonly name = 'SecretKeyError';
  constructor(
    readonly code: 'unknown_key' | 'undecryptable',
    readonly keyId: string,
  ) {
    super(
      code === 'unknown_key'
        ? `the endpoint secret is sealed with key "${keyId}", which PAYSYNC_SECRETS_KEY does not hold`
        : `the endpoint secret does not open with key "${keyId}" of PAYSYNC_SECRETS_KEY (a different key under the same id?)`,
    );
  }
}

const keyBytes = (key: SecretsKey) => Buffer.from(key.key, 'base64');

/** `plain` sealed with the first (current) key; as it is when there is no key. */
export function sealSecret(plain: string, keys: readonly SecretsKey[]): string {
  const current = keys[0];
  if (!current) return plain;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(current), iv);
  cipher.setAAD(Buffer.from(`${PREFIX}${current.id}`, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const payload = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  return `${PREFIX}${current.id}:${payload}`;
}

/** The secret a stored value holds; throws SecretKeyError when no key of `keys` opens it. */
export function openSecret(stored: string, keys: readonly SecretsKey[]): string {
  if (!stored.startsWith(PREFIX)) return stored;
  const rest = stored.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  const keyId = rest.slice(0, colon);
  const key = keys.find((k) => k.id === keyId);
  if (colon < 0 || !key) throw new SecretKeyError('unknown_key', keyId);
  try {
    const bytes = Buffer.from(rest.slice(colon + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`${PREFIX}${keyId}`, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SecretKeyError('undecryptable', keyId);
  }
}

/** Whether a stored value is sealed with the current key (else it wants re-sealing). */
export function sealedWithCurrentKey(stored: string, keys: readonly SecretsKey[]): boolean {
  const current = keys[0];
  return current !== undefined && stored.startsWith(`${PREFIX}${current.id}:`);
}

/** The id of the key that sealed a stored value; undefined for plain text. */
export function sealedKeyId(stored: string): string | undefined {
  if (!stored.startsWith(PREFIX)) return undefined;
  const rest = stored.slice(PREFIX.length);
  return rest.slice(0, Math.max(rest.indexOf(':'), 0));
}
