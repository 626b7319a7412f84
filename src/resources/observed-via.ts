/** How paysync learned about a change: a webhook, a scheduled poll or sweep, or a replay. */
export type ObservedVia = 'webhook' | 'poll' | 'replay';
