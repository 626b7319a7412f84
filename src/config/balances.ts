import { z } from 'zod';
import { cronOrOff, type Parsed } from './fields.ts';

// Balance snapshots, low-balance thresholds and the daily verdict (docs/balances.md).

/** Hourly. */
export const DEFAULT_BALANCE_CRON = '0 * * * *';
/** 20 past every hour: after the hourly snapshot has taken the end-of-day balances. */
export const DEFAULT_VERDICT_CRON = '20 * * * *';

export const BALANCE_VARIABLES = {
  /** When balances are snapshotted (and missed end-of-day snapshots filled in). @defaultValue hourly */
  PAYSYNC_BALANCE_CRON: cronOrOff(DEFAULT_BALANCE_CRON),
  /** When closed days get their verdict. @defaultValue 20 past every hour */
  PAYSYNC_VERDICT_CRON: cronOrOff(DEFAULT_VERDICT_CRON),
  /** Low-balance thresholds: `transfer:XOF:1000000,transfer-irt:EUR:50000`. @defaultValue none */
  PAYSYNC_LOW_BALANCE: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      const parsed = parseLowBalanceThresholds(value);
      if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
    }),
};

/** Balance snapshots, low-balance thresholds and the daily verdict (see docs/balances.md). */
export interface BalanceSettings {
  /** Cron of the snapshot task, or `off`. @defaultValue `0 * * * *` */
  readonly cron: string;
  /** Cron of the verdict task, or `off`. @defaultValue `20 * * * *` */
  readonly verdictCron: string;
  /** @defaultValue [] */
  readonly lowBalance: readonly LowBalanceThreshold[];
}

/** A low-balance threshold: warn when `accountType` in `currency` goes under `minimum`. */
export interface LowBalanceThreshold {
  readonly accountType: string;
  readonly currency: string;
  /** Minor units. */
  readonly minimum: number;
}

/**
 * Parses `PAYSYNC_LOW_BALANCE`: `transfer:XOF:1000000,transfer-irt:EUR:50000`. Returns the
 * thresholds, or a one-line reason naming the bad entry.
 */
export function parseLowBalanceThresholds(
  text: string | undefined,
): { thresholds: LowBalanceThreshold[] } | { problem: string } {
  const thresholds: LowBalanceThreshold[] = [];
  for (const entry of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^(collection|transfer|transfer-irt|cross-border):([A-Za-z]{3}):(\d{1,15})$/.exec(
      entry,
    );
    if (!match) {
      return {
        problem: `"${entry}" is not <account type>:<currency>:<minor units>, e.g. transfer:XOF:1000000 (account types: collection, transfer, transfer-irt, cross-border)`,
      };
    }
    thresholds.push({
      accountType: match[1]!,
      currency: match[2]!.toUpperCase(),
      minimum: Number(match[3]),
    });
  }
  return { thresholds };
}

export function balanceSettings(e: Parsed<typeof BALANCE_VARIABLES>): BalanceSettings {
  return Object.freeze({
    cron: e.PAYSYNC_BALANCE_CRON,
    verdictCron: e.PAYSYNC_VERDICT_CRON,
    lowBalance: Object.freeze(
      (parseLowBalanceThresholds(e.PAYSYNC_LOW_BALANCE) as { thresholds: LowBalanceThreshold[] })
        .thresholds,
    ),
  });
}
