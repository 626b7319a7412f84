import { referenceFromInbox } from '../ingest/inbox-progress.repository.ts';
import { transferReferenceOf } from '../ledger/index.ts';
import { walkWindow, type Transfer } from '../upstream/index.ts';
import { CLOCK_SKEW_MS, type FetchDependencies } from './sync-dependencies.ts';
import { UnknownResourceError } from './unknown-resource-error.ts';

/** Where a transfer's reference was found, in the order they are tried. */
export type ReferenceSource = 'event' | 'inbox' | 'mirror' | 'window';

export interface ResolvedReference {
  readonly reference: string;
  readonly source: ReferenceSource;
  /** The transfer itself when the window search found it (it came from the list endpoint). */
  readonly found?: Transfer;
}

/**
 * `GET /transfers` filters by `reference`, not by id. For an event that names only `tr_…`,
 * the reference comes from, in order: the event body; an earlier event about the same
 * transfer; the local mirror; a bounded walk of the last `transferSearchHours` of transfers.
 * Throws {@link UnknownResourceError} when none has it.
 */
export async function resolveTransferReference(
  deps: FetchDependencies,
  id: string,
  fromEvent: string | undefined,
): Promise<ResolvedReference> {
  if (fromEvent) return { reference: fromEvent, source: 'event' };
  const fromInbox = await referenceFromInbox(deps.db, 'transfer', id);
  if (fromInbox) return { reference: fromInbox, source: 'inbox' };
  const fromMirror = await transferReferenceOf(deps.db, id);
  if (fromMirror) return { reference: fromMirror, source: 'mirror' };
  const now = (deps.now ?? (() => new Date()))().getTime();
  const from = new Date(now - deps.transferSearchHours * 3_600_000);
  const to = new Date(now + CLOCK_SKEW_MS);
  for await (const transfer of walkWindow(deps.upstream, 'listTransfers', { from, to })) {
    if (transfer.id === id)
      return { reference: transfer.reference, source: 'window', found: transfer };
  }
  throw new UnknownResourceError(
    'transfer',
    id,
    `no reference in the event, the inbox or the mirror, and not among the transfers of the last ${deps.transferSearchHours} h`,
  );
}
