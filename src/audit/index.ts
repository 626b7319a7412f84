/**
 * The auditor: judges the books from first principles, independently of the code that wrote
 * them (its own queries over the tables, none of the ledger's helpers), optionally against the
 * simulator's ground truth. Used by `paysync audit`, the tests and the chaos run.
 */
export {
  AUDIT_CHECKS,
  type AuditCheck,
  type AuditCounts,
  type AuditReport,
  type AuditScopeReport,
  type AuditViolation,
} from './audit-types.ts';
export { formatAudit } from './format-audit.ts';
export {
  GroundTruthError,
  type GroundTruthRefusal,
  loadGroundTruth,
  parseGroundTruth,
  type GroundTruth,
  type GroundTruthInput,
} from './ground-truth.ts';
export { runAudit, type AuditOptions, type AuditSince } from './run-audit.ts';
export { AUDIT_RUNS_RETENTION } from './audit-run-retention.ts';
