/**
 * How paysync learned about a change: a webhook, a poll by id (janitor), a list sweep or
 * backfill, or a replay.
 */
export type ObservedVia = 'webhook' | 'poll' | 'replay' | 'sweep';
