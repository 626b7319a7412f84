import {
  RELAY_ATTEMPTS_RETENTION,
  RELAY_DELIVERIES_RETENTION,
  RELAY_EVENTS_RETENTION,
} from '../relay/index.ts';
import type { RetentionPeriods } from '../config/index.ts';
import type { PrunableTable } from '../db/index.ts';

/** The shape of a `RetentionTarget` (retention-policy.ts), spelled out so neither file imports the other. */
interface RelayTarget extends PrunableTable {
  readonly removes: 'row';
  readonly period: keyof RetentionPeriods;
  readonly variable: string;
  readonly rule: string;
}

/**
 * The relay's tables (docs/relay.md, "Retention"), one period for the three, in this
 * order: the log first, then the finished deliveries, then the events none of them names.
 */
export const RELAY_RETENTION_TARGETS: readonly RelayTarget[] = [
  {
    ...RELAY_ATTEMPTS_RETENTION,
    removes: 'row',
    period: 'relay',
    variable: 'PAYSYNC_RETENTION_RELAY_AFTER',
    rule: 'delivery log rows (one per POST) are deleted',
  },
  {
    ...RELAY_DELIVERIES_RETENTION,
    removes: 'row',
    period: 'relay',
    variable: 'PAYSYNC_RETENTION_RELAY_AFTER',
    rule: 'delivered or given-up deliveries are deleted; pending ones never are',
  },
  {
    ...RELAY_EVENTS_RETENTION,
    removes: 'row',
    period: 'relay',
    variable: 'PAYSYNC_RETENTION_RELAY_AFTER',
    rule: 'events no delivery names any more are deleted; an event a pending delivery needs never is',
  },
];
