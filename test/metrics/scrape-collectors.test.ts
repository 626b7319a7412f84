import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { latestSnapshots } from '../../src/balances/index.ts';
import { openDiscrepancyCounts, openDriftDetails } from '../../src/ledger/index.ts';
import { addScrapeSource, metricsRegistry } from '../../src/metrics/index.ts';
import { freshDatabase } from '../support/test-database.ts';

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
      // Past the reuse window of the previous reading.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const text = await metricsRegistry.metrics();
      expect(text).not.toContain('paysync_discrepancies_open{kind="contract_error"}');
      expect(text).toMatch(
        /paysync_metrics_collect_errors_total\{collector="discrepancies"\} [1-9]/,
      );
    } finally {
      stop();
    }
    // A removed source is not read any more.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await metricsRegistry.metrics()).not.toContain('paysync_discrepancies_open{');
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
