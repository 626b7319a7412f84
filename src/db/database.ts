import type { AlertDeliveryTable, AlertDigestTable, AlertTable } from '../alerts/alert.table.ts';
import type { AuditRunTable } from '../audit/audit-run.table.ts';
import type { InboxTables } from '../inbox/inbox.table.ts';
import type { DiscrepancyTable } from '../ledger/discrepancy.table.ts';
import type { JournalLineTable, JournalTable } from '../ledger/journal.table.ts';
import type { LedgerDayTotalTable } from '../ledger/day-total.table.ts';
import type { MirrorPollTable } from '../ledger/mirror-poll.table.ts';
import type { LedgerAdjustmentTable } from '../ledger/ledger-adjustment.table.ts';
import type {
  ClosedPeriodTable,
  LateChangeTable,
  PeriodEventTable,
} from '../ledger/closed-period.table.ts';
import type { BalanceSnapshotTable } from '../balances/balance-snapshot.table.ts';
import type { LowBalanceStateTable } from '../balances/low-balance-state.table.ts';
import type { DailyVerdictTable } from '../reports/daily-verdict.table.ts';
import type { PaymentIntentTable } from '../ledger/payment-intent.table.ts';
import type { PollingCheckpointTable } from '../polling/checkpoint.table.ts';
import type { ScheduledRunTable } from '../runs/scheduled-run.table.ts';
import type { RefundTable } from '../ledger/refund.table.ts';
import type { StatusHistoryTable } from '../ledger/status-history.table.ts';
import type { TransferTable } from '../ledger/transfer.table.ts';
import type { OutboxTable } from '../outbox/outbox.table.ts';
import type { ReceiptTable } from '../receipts/receipt.table.ts';
import type {
  RelayAttemptTable,
  RelayDeliveryTable,
  RelayEndpointTable,
  RelayEventTable,
} from '../relay/relay.tables.ts';
import type { ExpectationTables } from '../expectations/expectations.tables.ts';
import type { ServiceStateTable } from '../service-state/service-state.table.ts';

/**
 * Every table paysync owns. Each component declares its own table types beside its code;
 * add a line here (and keep the list sorted by component) when a migration adds a table.
 * The inbox names its own table, so no other code spells it.
 */
export interface Database extends InboxTables, ExpectationTables {
  payment_intents: PaymentIntentTable;
  transfers: TransferTable;
  refunds: RefundTable;
  status_history: StatusHistoryTable;
  journals: JournalTable;
  journal_lines: JournalLineTable;
  ledger_day_totals: LedgerDayTotalTable;
  discrepancies: DiscrepancyTable;
  mirror_polls: MirrorPollTable;
  ledger_adjustments: LedgerAdjustmentTable;
  service_state: ServiceStateTable;
  balance_snapshots: BalanceSnapshotTable;
  low_balance_state: LowBalanceStateTable;
  daily_verdicts: DailyVerdictTable;
  outbox: OutboxTable;
  receipts: ReceiptTable;
  scheduled_runs: ScheduledRunTable;
  polling_checkpoints: PollingCheckpointTable;
  alerts: AlertTable;
  alert_deliveries: AlertDeliveryTable;
  alert_digests: AlertDigestTable;
  closed_periods: ClosedPeriodTable;
  period_events: PeriodEventTable;
  late_changes: LateChangeTable;
  audit_runs: AuditRunTable;
  relay_events: RelayEventTable;
  relay_endpoints: RelayEndpointTable;
  relay_deliveries: RelayDeliveryTable;
  relay_attempts: RelayAttemptTable;
}
