import type { Mode } from '../engine/sim-resources.ts';

/**
 * The body the simulator POSTs to webhook URLs. The interface document does not show event
 * payloads; this is the simulator's choice. `data.object` is the full resource as
 * GET would return it at the time of the change.
 */
export interface WebhookEvent {
  /** `evt_<24 chars>`; also the `webhook-id` header, identical across retries and duplicates. */
  id: string;
  /** `<kind>.created` on creation, `<kind>.updated` on every later change. */
  type: string;
  /** Simulator-clock time of the change. */
  createdAt: string;
  mode: Mode;
  data: {
    object: Record<string, unknown>;
    /** The status before the change (absent on creation). */
    previousStatus?: string;
  };
}

/** True when a webhook subscribed to `patterns` wants `type` (`*`, `transfer.*` or exact). */
export function wantsEvent(patterns: readonly string[], type: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some(
    (pattern) =>
      pattern === '*' ||
      pattern === type ||
      (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))),
  );
}
