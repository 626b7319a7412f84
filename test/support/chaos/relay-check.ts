/**
 * The chaos run's relay check (issue 23): after the run quiesces, wait until the relay has
 * nothing left to deliver, then compare what the consumer holds with what the books imply:
 * - one `<kind>.<succeeded|failed|status_changed>` per status each item reached (the status
 *   history), so in particular one `<kind>.succeeded` or `<kind>.failed` per final item;
 * - one `day.verdict` per judged (closed) day, one `alert.raised` per alert;
 * none missing, no fact twice under two event ids, no event the books do not imply, and per
 * item the events in the order the books reached their statuses.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import { RELAYED_ITEM_KINDS } from '../../../src/relay/index.ts';
import type { ChaosRelayConsumer, ConsumedEvent } from './relay-consumer.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What is still to deliver: pending and given-up deliveries. */
export async function undelivered(
  db: Kysely<Database>,
): Promise<{ pending: number; gaveUp: number }> {
  const rows = await sql<{ state: string; n: number | string }>`select state, count(*) as n
    from relay_deliveries where state <> 'delivered' group by state`.execute(db);
  const of = (state: string) => Number(rows.rows.find((r) => r.state === state)?.n ?? 0);
  return { pending: of('pending'), gaveUp: of('gave_up') };
}

/**
 * Waits until no delivery is pending, polling every second up to `deadline` (epoch ms). Returns
 * undefined when the relay is quiet, else why not (a one-line failure message).
 */
export async function waitForRelayQuiet(
  db: Kysely<Database>,
  deadline: number,
): Promise<string | undefined> {
  for (;;) {
    const left = await undelivered(db);
    if (left.pending === 0 && left.gaveUp === 0) return undefined;
    if (left.pending === 0 || Date.now() > deadline) {
      return `the relay did not deliver everything: ${left.pending} deliveries still pending, ${left.gaveUp} given up (see \`paysync endpoints pending\`)`;
    }
    await sleep(1000);
  }
}

const WHAT_OF_STATUS = (status: string) =>
  status === 'successful' ? 'succeeded' : status === 'failed' ? 'failed' : 'status_changed';

/** The fact an event stands for: one event per fact, ever. */
function factOf(event: ConsumedEvent): string {
  const kind = event.type.slice(0, event.type.lastIndexOf('.'));
  if ((RELAYED_ITEM_KINDS as readonly string[]).includes(kind)) {
    return `${event.type} ${event.subject}:${String(event.data.status)}`;
  }
  if (event.type === 'day.verdict') return `day.verdict ${String(event.data.day)}`;
  if (event.type === 'alert.raised') return `alert.raised ${String(event.data.alertId)}`;
  if (event.type.startsWith('balance.')) {
    return `${event.type} ${String(event.data.discrepancyId)}:${String(event.data.asOf)}`;
  }
  return `${event.type} ${event.id}`;
}

export interface RelayCheckResult {
  /** For the chaos table. */
  readonly found: Record<string, number>;
  /** Why the check fails; empty when it passes. */
  readonly problems: string[];
  /** Events received by type, for the log. */
  readonly byType: Record<string, number>;
}

/** Compares the consumer's events with the facts the books imply. */
export async function checkRelayConsumer(
  db: Kysely<Database>,
  consumer: ChaosRelayConsumer,
): Promise<RelayCheckResult> {
  // The books. Each status an item reached, at its first reaching (status_history's id is the
  // order the books recorded the changes in).
  const reached = await sql<{
    kind: string;
    id: string;
    status: string;
    first: number | string;
  }>`select resource_kind as kind, resource_id as id, to_status as status, min(id) as first
    from status_history group by resource_kind, resource_id, to_status`.execute(db);
  const finals = await sql<{ kind: string; id: string; status: string }>`
    select 'transfer' as kind, id, status from transfers where status in ('successful', 'failed')
    union all
    select 'payment_intent' as kind, id, status from payment_intents
      where status in ('successful', 'failed')
    union all
    select kind, id, status from refunds where status in ('successful', 'failed')`.execute(db);
  const days = await sql<{ day: string }>`select day from daily_verdicts`.execute(db);
  const alerts = await sql<{ id: number | string }>`select id from alerts`.execute(db);

  /** Each fact the books imply → the order key of an item's status (0 for others). */
  const implied = new Map<string, number>();
  for (const r of reached.rows) {
    if (!(RELAYED_ITEM_KINDS as readonly string[]).includes(r.kind)) continue;
    implied.set(
      `${r.kind}.${WHAT_OF_STATUS(r.status)} ${r.kind}:${r.id}:${r.status}`,
      Number(r.first),
    );
  }
  for (const d of days.rows) implied.set(`day.verdict ${d.day}`, 0);
  for (const a of alerts.rows) implied.set(`alert.raised ${Number(a.id)}`, 0);

  // The consumer: distinct events by fact.
  const byFact = new Map<string, ConsumedEvent[]>();
  const byType: Record<string, number> = {};
  for (const event of consumer.events.values()) {
    const fact = factOf(event);
    byFact.set(fact, [...(byFact.get(fact) ?? []), event]);
    byType[event.type] = (byType[event.type] ?? 0) + 1;
  }
  const missing = [...implied.keys()].filter((fact) => !byFact.has(fact));
  const twice = [...byFact].filter(([, events]) => events.length > 1).map(([fact]) => fact);
  const notImplied = [...byFact.keys()].filter(
    (fact) => !implied.has(fact) && !fact.startsWith('balance.'),
  );
  // One succeeded or failed per final item, the brief's own wording of the first fact.
  const finalsNotOnce = finals.rows.filter((item) => {
    const type = `${item.kind}.${WHAT_OF_STATUS(item.status)}`;
    return (byFact.get(`${type} ${item.kind}:${item.id}:${item.status}`)?.length ?? 0) !== 1;
  });

  // Order per item: by first arrival, the books' order of the statuses must not go back.
  const bySubject = new Map<string, ConsumedEvent[]>();
  for (const event of consumer.events.values()) {
    if (event.subject === null) continue;
    bySubject.set(event.subject, [...(bySubject.get(event.subject) ?? []), event]);
  }
  const outOfOrder: string[] = [];
  for (const [subject, events] of bySubject) {
    const keys = events
      .sort((a, b) => a.arrival - b.arrival)
      .map((event) => implied.get(factOf(event)) ?? 0);
    if (keys.some((key, i) => i > 0 && key !== 0 && key < keys[i - 1]!)) outOfOrder.push(subject);
  }

  const figures = consumer.figures();
  const problems: string[] = [];
  const show = (facts: string[]) => `${facts.length} (e.g. ${facts.slice(0, 3).join(', ')})`;
  if (missing.length > 0) problems.push(`relay events missing at the consumer: ${show(missing)}`);
  if (twice.length > 0) problems.push(`relay facts received under two event ids: ${show(twice)}`);
  if (notImplied.length > 0)
    problems.push(`relay events the books do not imply: ${show(notImplied)}`);
  if (finalsNotOnce.length > 0) {
    problems.push(
      `final items without exactly one succeeded/failed event: ${show(finalsNotOnce.map((i) => `${i.kind}:${i.id}`))}`,
    );
  }
  if (outOfOrder.length > 0)
    problems.push(`items whose events arrived out of order: ${show(outOfOrder)}`);
  if (figures.badSignatures > 0)
    problems.push(`${figures.badSignatures} deliveries failed signature verification`);
  if (figures.mismatchedIds > 0)
    problems.push(`${figures.mismatchedIds} deliveries whose body id was not their webhook-id`);

  return {
    found: {
      'relay events implied by the books': implied.size,
      'relay events received (distinct)': figures.events,
      'relay duplicates received (allowed: at least once)': figures.duplicates,
      'relay final items (one succeeded or failed each)': finals.rows.length,
      'relay day verdicts (one day.verdict each)': days.rows.length,
      'relay events missing': missing.length,
      'relay facts under two event ids': twice.length,
      'relay events the books do not imply': notImplied.length,
      'relay items with more than one event (order checked)': [...bySubject.values()].filter(
        (events) => events.length > 1,
      ).length,
      'relay items out of order': outOfOrder.length,
      'relay signatures not valid': figures.badSignatures,
    },
    problems,
    byType,
  };
}
