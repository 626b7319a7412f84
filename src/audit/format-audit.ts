import type { AuditReport } from './audit-types.ts';

/**
 * The report as a person reads it: one line per violation, what was skipped, the mode and its
 * range, the clean-audit record written, and last the verdict with what was checked.
 */
export function formatAudit(report: AuditReport): string {
  const { counts } = report;
  const lines: string[] = [];
  for (const violation of report.violations)
    lines.push(`✖ ${violation.check}: ${violation.message}`);
  if (report.violations.length > 0) lines.push('');
  const looked = [
    `${counts.journals} journals`,
    `${counts.lines} lines`,
    `${counts.items} items`,
    `${counts.inboxProcessed} processed inbox rows`,
    ...(counts.outbox === undefined ? [] : [`${counts.outbox} outbox rows`]),
    ...(counts.truthItems === undefined
      ? []
      : [`${counts.truthItems} truth items`, `${counts.movements ?? 0} movements`]),
  ];
  for (const note of report.skipped) lines.push(`  (not checked: ${note})`);
  lines.push(`${report.mode} audit of ${report.range}`);
  // The verdict stays the last line: scripts (bench:pipeline) read it.
  if (report.recordedRun !== null) {
    lines.push(
      `recorded as clean audit ${report.recordedRun}: the next --since last-clean starts from ${report.watermark.startedAt} (journals after id ${report.watermark.maxJournalId}, inbox rows after id ${report.watermark.maxInboxId})`,
    );
  }
  lines.push(
    report.clean
      ? `audit clean: ${looked.join(', ')} checked in ${report.durationMs} ms`
      : `audit found ${report.violations.length} violation(s) in ${looked.join(', ')} (${report.durationMs} ms)`,
  );
  return lines.join('\n');
}
