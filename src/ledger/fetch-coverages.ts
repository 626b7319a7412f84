import type { Executor } from '../db/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';

/** What a sync about one item needs to know before it fetches. */
export interface FetchCoverage {
  /** Every inbox id at or below this was received before an applied fetch began. */
  readonly coveredInboxId: number;
  /** True when the janitor asked for a poll or one is due: the fetch must happen. */
  readonly pollCalledFor: boolean;
  /** The item's reference, when known. */
  readonly reference: string | undefined;
}

/** An item as a sync names it: by id, else by reference. */
export interface CoverageHandle {
  readonly kind: LedgerResourceKind;
  readonly id?: string | undefined;
  readonly reference?: string | undefined;
}

interface CoverageRow {
  readonly resource_kind: string;
  readonly resource_id: string;
  readonly reference: string | null;
  readonly next_poll_at: string | null;
  readonly poll_requested_at: string | null;
  readonly covered_inbox_id: number | string;
}

/**
 * `fetchCoverage` for the items of one sync batch, in one query: the answer for each handle,
 * in order, is what `fetchCoverage` would answer for it alone (undefined when no applied fetch
 * is on file, or when a reference names several items that disagree).
 */
export async function fetchCoverages(
  db: Executor,
  handles: readonly CoverageHandle[],
  now: string,
): Promise<(FetchCoverage | undefined)[]> {
  const byKind = new Map<string, { ids: Set<string>; references: Set<string> }>();
  for (const { kind, id, reference } of handles) {
    let named = byKind.get(kind);
    if (!named) byKind.set(kind, (named = { ids: new Set(), references: new Set() }));
    if (id !== undefined) named.ids.add(id);
    else if (reference !== undefined) named.references.add(reference);
  }
  const rows: CoverageRow[] =
    byKind.size === 0
      ? []
      : await db
          .selectFrom('mirror_polls')
          .select([
            'resource_kind',
            'resource_id',
            'reference',
            'next_poll_at',
            'poll_requested_at',
            'covered_inbox_id',
          ])
          .where((eb) =>
            eb.or(
              [...byKind].flatMap(([kind, { ids, references }]) => [
                ...(ids.size > 0
                  ? [eb.and([eb('resource_kind', '=', kind), eb('resource_id', 'in', [...ids])])]
                  : []),
                ...(references.size > 0
                  ? [
                      eb.and([
                        eb('resource_kind', '=', kind),
                        eb('reference', 'in', [...references]),
                      ]),
                    ]
                  : []),
              ]),
            ),
          )
          .execute();
  const byId = new Map<string, CoverageRow[]>();
  const byReference = new Map<string, CoverageRow[]>();
  const add = (map: Map<string, CoverageRow[]>, key: string, row: CoverageRow) =>
    map.set(key, [...(map.get(key) ?? []), row]);
  for (const row of rows) {
    add(byId, `${row.resource_kind} ${row.resource_id}`, row);
    if (row.reference !== null) add(byReference, `${row.resource_kind} ${row.reference}`, row);
  }
  return handles.map(({ kind, id, reference }) => {
    const found =
      id !== undefined
        ? byId.get(`${kind} ${id}`)
        : reference !== undefined
          ? byReference.get(`${kind} ${reference}`)
          : undefined;
    return found && found.length > 0 ? coverageOf(found, now) : undefined;
  });
}

function coverageOf(rows: readonly CoverageRow[], now: string): FetchCoverage | undefined {
  let covered = Number.MAX_SAFE_INTEGER;
  let pollCalledFor = false;
  for (const row of rows) {
    covered = Math.min(covered, Number(row.covered_inbox_id));
    if (row.poll_requested_at !== null) pollCalledFor = true;
    if (row.next_poll_at !== null && row.next_poll_at <= now) pollCalledFor = true;
  }
  if (covered === 0) return undefined;
  return { coveredInboxId: covered, pollCalledFor, reference: rows[0]!.reference ?? undefined };
}
