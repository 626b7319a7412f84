import { defineConfig } from 'vitest/config';

const POSTGRES_URL =
  process.env.PAYSYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Three projects: `unit` runs what needs no database once; `sqlite` and `postgres` run every
 * `*.db.test.ts` suite once per dialect, so both dialects pass the same tests.
 */
export default defineConfig({
  test: {
    allowOnly: !process.env.CI,
    // Generous: the suite must pass with both cores busy (CI runs projects side by side). A test
    // waits for conditions with until(), so a passing test never sits out these bounds; they
    // only decide how long a hung one takes to fail.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.db.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.db.test.ts'],
          env: { PAYSYNC_TEST_DIALECT: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/**/*.db.test.ts'],
          env: { PAYSYNC_TEST_DIALECT: 'postgres', PAYSYNC_TEST_POSTGRES_URL: POSTGRES_URL },
        },
      },
    ],
  },
});
