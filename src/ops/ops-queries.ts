import type { Kysely } from 'kysely';
import { cachedComparison, snapshotHistory } from '../balances/index.ts';
import { maskNumber } from '../alerts/index.ts';
import type { Database } from '../db/index.ts';
import { findResource } from '../resource-view/index.ts';
import {
  accountBalances,
  listResources,
  openDiscrepancies,
  type DiscrepancySummary,
  type LedgerResourceKind,
  type MirrorRecord,
} from '../ledger/index.ts';
import type { Logger } from '../logger.ts';
import type { Clock } from '../lifecycle/index.ts';
import {
  dayVerdict,
  describeBreak,
  storedVerdicts,
  type VerdictBooks,
  type VerdictRules,
  type VerdictSchedule,
} from '../reports/index.ts';

/**
 * The reads behind the API and the dashboard, all through the domain components' index.ts.
 * List readers take `offset + limit + 1` rows so the caller can tell whether a next page exists.
 */
export interface OpsReadContext {
  readonly db: Kysely<Database>;
  readonly environment: string;
  readonly timeZone: string;
  readonly logger: Logger;
  /** The process's clock: a report computed on the spot is as of now. */
  readonly now: Clock;
  /** How a day's verdict is judged: as `paysync report` and the verdicts task judge it. */
  readonly verdictRules: VerdictRules;
  /** When the verdicts task stores a day's verdict. */
  readonly verdictSchedule: VerdictSchedule;
}

/** The books a day's verdict is judged on, with the rules of the process. */
export function verdictBooksOf(ctx: OpsReadContext): VerdictBooks {
  return {
    db: ctx.db,
    environment: ctx.environment,
    timeZone: ctx.timeZone,
    rules: ctx.verdictRules,
  };
}

export interface ResourceFilter {
  readonly status?: string | undefined;
  readonly since?: string | undefined;
}

const NUMBER_FIELDS = /^(number|phone|phoneNumber|accountNumber|iban|msisdn)$/i;

/**
 * A mirrored record as the ops surfaces show it: without the service's raw JSON, and with the
 * destination's account or phone number masked as everywhere else (`+22177•••••01`).
 */
export function publicRecord(record: MirrorRecord): Record<string, unknown> {
  const { raw: _raw, ...rest } = record;
  if (rest.kind !== 'transfer') return rest;
  const destination = Object.fromEntries(
    Object.entries(rest.destination).map(([key, value]) => [
      key,
      NUMBER_FIELDS.test(key) && typeof value === 'string' ? maskNumber(value) : value,
    ]),
  );
  return { ...rest, destination };
}

export async function readResources(
  ctx: OpsReadContext,
  kind: 'payment_intent' | 'transfer' | 'refunds',
  filter: ResourceFilter,
  rows: number,
): Promise<MirrorRecord[]> {
  const options = {
    ...(filter.status ? { status: filter.status.split(',') } : {}),
    ...(filter.since ? { since: filter.since } : {}),
    limit: rows,
  };
  if (kind !== 'refunds') return listResources(ctx.db, kind, options);
  const kinds: LedgerResourceKind[] = ['refund', 'payment_refund'];
  const both: MirrorRecord[] = [];
  for (const k of kinds) both.push(...(await listResources(ctx.db, k, options)));
  return both
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
    .slice(0, rows);
}

export function discrepancyView(d: DiscrepancySummary) {
  const { line, action } = describeBreak(d);
  return {
    id: d.id,
    kind: d.kind,
    resourceKind: d.resourceKind,
    resourceId: d.resourceId,
    detail: { ...d.detail },
    inboxId: d.inboxId,
    createdAt: d.createdAt,
    resolvedAt: d.resolvedAt,
    line,
    action,
  };
}

export async function readOpenDiscrepancies(ctx: OpsReadContext, rows: number) {
  return (await openDiscrepancies(ctx.db, { limit: rows })).map(discrepancyView);
}

export async function readItem(ctx: OpsReadContext, id: string) {
  const view = await findResource(ctx.db, id);
  if (!view) return undefined;
  return {
    record: publicRecord(view.record),
    history: view.history.map((h) => ({ ...h })),
    journals: view.journals.map((j) => ({ ...j })),
    discrepancies: view.discrepancies.map(discrepancyView),
    inboxEvents: view.inboxEvents.map((e) => ({ ...e })),
  };
}

/**
 * The latest snapshot of each account against the ledger at its instant, and the accounts the
 * ledger holds that the newest answer does not list (`unanswered`: not compared, never 0): the
 * one reading of `paysync balances --cached` (cachedComparison), with the ledger's totals.
 */
export async function readBalances(ctx: OpsReadContext) {
  const cached = await cachedComparison({
    db: ctx.db,
    logger: ctx.logger,
    environment: ctx.environment,
  });
  const data = (cached?.comparisons ?? []).map((c) => ({
    ...c,
    candidates: c.candidates.map((x) => ({ ...x })),
  }));
  const unanswered = (cached?.unanswered ?? []).map((u) => ({ ...u }));
  const ledger = (await accountBalances(ctx.db)).map((b) => ({ ...b }));
  return { data, unanswered, ledger };
}

export async function readSnapshotHistory(
  ctx: OpsReadContext,
  filter: { account?: string | undefined; since?: string | undefined },
  rows: number,
) {
  const history = await snapshotHistory(ctx.db, {
    environment: ctx.environment,
    ...(filter.account ? { accountType: filter.account } : {}),
    ...(filter.since ? { since: filter.since } : {}),
    limit: rows,
  });
  return history.map((s) => ({
    accountType: s.accountType,
    currency: s.currency,
    amount: s.amount,
    asOf: s.asOf,
    takenAt: s.takenAt,
    kind: s.kind,
  }));
}

export async function readVerdicts(ctx: OpsReadContext, rows: number) {
  return (await storedVerdicts(ctx.db, ctx.environment, { limit: rows })).map((v) => ({
    day: v.day,
    verdict: v.verdict,
    computedAt: v.computedAt,
    breaks: v.report.breaks.length,
  }));
}

/**
 * A day's report as `paysync report --date <day>` computes it now (reading stores nothing), and
 * whether the verdicts task has stored that verdict, or when it will.
 */
export async function readReport(ctx: OpsReadContext, day: string) {
  const { report, storage } = await dayVerdict(
    verdictBooksOf(ctx),
    ctx.verdictSchedule,
    day,
    ctx.now(),
  );
  return { data: report, stored: storage.state === 'stored', storage };
}
