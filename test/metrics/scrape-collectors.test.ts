import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { latestSnapshots } from '../../src/balances/index.ts';
import { openDiscrepancyCounts, openDriftDetails } from '../../src/ledger/index.ts';
import { addScrapeSource, metricsRegistry } from '../../src/metrics/index.ts';
import { freshDatabase } from '../support/test-database.ts';
import { until } from '../support/until.ts';

describe('scrape-time gauges', () => {
  it('a database that fails leaves its series out and counts the error; the scrape still answers', async () => {
    const database = await freshDatabase();
    await database.db
      .insertInto('discrepancies')
      .values({
        kind: 'contract_error',
        resource_kind: null,
        resource_id: null,
        detail: '{}',
        raw_body: null,
        inbox_id: null,
        dedupe_key: 'scrape-1',
        created_at: new Date().toISOString(),
        resolved_at: null,
      })
      .execute();
    const db = database.db;
    const stop = addScrapeSource({
      db,
      books: {
        openDiscrepancyCounts: () => openDiscrepancyCounts(db),
        openDriftDetails: (limit) => openDriftDetails(db, { limit }),
        newestSnapshots: (environment) => latestSnapshots(db, environment),
      },
      environment: 'sandbox',
    });
    try {
      expect(await metricsRegistry.metrics()).toContain(
        'paysync_discrepancies_open{kind="contract_error"} 1',
      );
      await database.cleanup();
      // Once the previous reading is past its reuse window (a second) and read again.
      const text = await until(() => metricsRegistry.metrics(), {
        accept: (t) => !t.includes('paysync_discrepancies_open{kind="contract_error"}'),
        message: 'a fresh reading without the dropped database',
      });
      expect(text).not.toContain('paysync_discrepancies_open{kind="contract_error"}');
      expect(text).toMatch(
        /paysync_metrics_collect_errors_total\{collector="discrepancies"\} [1-9]/,
      );
    } finally {
      stop();
    }
    // A removed source is not read any more.
    expect(
      await until(() => metricsRegistry.metrics(), {
        accept: (t) => !t.includes('paysync_discrepancies_open{'),
        message: 'a reading without the removed source',
      }),
    ).not.toContain('paysync_discrepancies_open{');
  });

  it('a bad PAYSYNC_METRICS_PORT is refused naming the variable', () => {
    expect(() => loadConfig({ PAYSYNC_METRICS_PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ PAYSYNC_METRICS_PORT: 'nine' })).toThrow(
      /PAYSYNC_METRICS_PORT="nine".*must be a whole number/,
    );
    expect(loadConfig({ PAYSYNC_METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(loadConfig({}).metricsPort).toBeUndefined();
  });
});
