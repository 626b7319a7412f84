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
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
