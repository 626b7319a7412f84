import type { NewInboxEvent } from '../inbox/index.ts';
import { classifyEvent } from './classify-event.ts';
import type { TenantMetrics } from '../metrics/index.ts';
import { classifiedEventsTotal } from './ingest-metrics.ts';

/**
 * Classify at intake (docs/processing.md, "Classified at intake"): the receiver names the
 * resource an event is about before the row is committed, so the row is stored with its
 * resource (or stored `processed` when it is about nothing paysync books) and the work that
 * follows is a sync of that resource, with no `ingest` job in between.
 *
 * Left for the ingest job, unchanged: an event the classifier cannot read (ingest marks it
 * `unclassified` and says why, once), and an event the sender gave no id. Such a row is keyed
 * by the hash of its bytes and absorbs a repeat of them only while it is `received` (see
 * `releasePickedUpBodyKeys` in src/inbox); a row stored with its resource could be closed by
 * another sync's fetch while still `received`, after absorbing a newer repeat. Going through
 * ingest keeps such rows out of other syncs' reach until they are picked up.
 *
 * `metrics` is the handle of the tenant whose receiver took the event: in a process serving
 * several, the count carries the tenant's label.
 */
export function classifyAtIntake(event: NewInboxEvent, metrics: TenantMetrics): NewInboxEvent {
  if (event.dedupeKey.startsWith('sha256:')) return event;
  const found = classifyEvent(event.rawBody);
  if (found.outcome === 'unclassified') return event;
  if (found.outcome === 'ignored') {
    metrics.inc(classifiedEventsTotal, { kind: 'ignored' });
    return { ...event, ignored: true };
  }
  metrics.inc(classifiedEventsTotal, { kind: found.kind });
  const { kind, id, reference } = found;
  return {
    ...event,
    resource: {
      kind,
      ...(id !== undefined ? { id } : {}),
      ...(reference !== undefined ? { reference } : {}),
    },
  };
}
