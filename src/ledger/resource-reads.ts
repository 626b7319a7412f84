/**
 * A public entry of its own (issue 39, declared in .dependency-cruiser.cjs): what `paysync show`
 * reads about one resource (its mirror row, status history, journals, discrepancies and the
 * refunds of it) and what `paysync list` lists, without the rest of the ledger that index.ts
 * loads (the syncs' apply code, the settlement and report queries), so that these read commands
 * load only these few modules.
 */
export type { Executor } from '../db/index.ts';
export type { LedgerResourceKind } from './ledger-resource-kind.ts';
export type { DiscrepancySummary, JournalSummary, StatusChange } from './ledger-types.ts';
export type { MirrorRecord } from './mirror-records.ts';
export { discrepanciesFor } from './discrepancy.repository.ts';
export { findMirrorRecord } from './find-mirror-record.ts';
export { journalsFor } from './journal.repository.ts';
export { listResources, type ListResourcesOptions } from './list-resources.ts';
export { refundsOf } from './refund.repository.ts';
export { statusHistoryFor } from './status-history.repository.ts';
