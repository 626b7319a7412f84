import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { readStateValue } from '../../src/service-state/index.ts';
import { countSignatureFailure, signatureFailuresBetween } from '../../src/service-state/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.cleanup();
  database = undefined;
});

const at = (iso: string) => new Date(iso);

describe(`the refused-signature counter, on ${testDialect()}`, () => {
  it('counts per minute, concurrent writers included, and a window sums whole minutes', async () => {
    database = await freshDatabase();
    const db = database.db;
    await Promise.all(
      Array.from({ length: 20 }, () => countSignatureFailure(db, at('2030-01-10T10:00:30.000Z'))),
    );
    await countSignatureFailure(db, at('2030-01-10T10:02:59.999Z'));
    await countSignatureFailure(db, at('2030-01-10T10:05:00.000Z'));
    expect(await readStateValue(db, 'signature_failures:2030-01-10T10:00')).toBe(20);
    expect(
      await signatureFailuresBetween(
        db,
        at('2030-01-10T10:00:59.000Z'),
        at('2030-01-10T10:04:00.000Z'),
      ),
    ).toBe(21);
    expect(
      await signatureFailuresBetween(
        db,
        at('2030-01-10T10:01:00.000Z'),
        at('2030-01-10T10:05:00.000Z'),
      ),
    ).toBe(2);
    // Another fact in service_state is neither counted nor pruned.
    await db
      .insertInto('service_state')
      .values({ key: 'upstream_credentials', value: '{}', updated_at: '2030-01-10T10:00:00.000Z' })
      .execute();
    expect(
      await signatureFailuresBetween(
        db,
        at('2000-01-01T00:00:00.000Z'),
        at('2100-01-01T00:00:00.000Z'),
      ),
    ).toBe(22);
  });

  it('keeps a day of minutes: each write drops older ones, nothing else', async () => {
    database = await freshDatabase();
    const db = database.db;
    await db
      .insertInto('service_state')
      .values({ key: 'upstream_credentials', value: '{}', updated_at: '2030-01-08T10:00:00.000Z' })
      .execute();
    await countSignatureFailure(db, at('2030-01-09T09:59:00.000Z'));
    await countSignatureFailure(db, at('2030-01-09T10:30:00.000Z'));
    await countSignatureFailure(db, at('2030-01-10T10:00:00.000Z'));
    const keys = (await db.selectFrom('service_state').select('key').orderBy('key').execute()).map(
      (row) => row.key,
    );
    expect(keys).toEqual([
      'signature_failures:2030-01-09T10:30',
      'signature_failures:2030-01-10T10:00',
      'upstream_credentials',
    ]);
  });

  it('config: defaults 10 in 5 minutes and 60 minutes of silence; a bad value names its variable', () => {
    expect(loadConfig({}).alerts).toMatchObject({
      signatureFailureThreshold: 10,
      signatureFailureWindowMs: 5 * 60_000,
      webhookSilenceMs: 60 * 60_000,
    });
    expect(() => loadConfig({ PAYSYNC_WEBHOOK_SILENCE_MINUTES: 'soon' })).toThrow(
      /PAYSYNC_WEBHOOK_SILENCE_MINUTES/,
    );
    expect(() => loadConfig({ PAYSYNC_ALERT_SIGNATURE_FAILURES: '0' })).toThrow(
      /PAYSYNC_ALERT_SIGNATURE_FAILURES/,
    );
  });
});
