/**
 * Property-based fuzz test of the webhook receiver: a real `paysync serve` child process over a
 * real inbox (SQLite, then PostgreSQL), fed raw HTTP requests by fast-check: random methods,
 * targets, content types, encodings and framings; header sets missing, repeated and oversized;
 * bodies binary, invalid UTF-8, deeply nested, huge, batched; signatures stale, future, of the
 * wrong version, of the wrong secret, among many alternatives. Mixed in: at least 200 validly
 * signed Standard Webhooks events, and redeliveries of some of them.
 *
 * Invariants:
 * - no answer is a 5xx (the database and Redis stay up throughout);
 * - the process never dies: it is alive and /healthz answers 200 at the end;
 * - every valid event is answered 202 and gets exactly one inbox row holding its bytes; a
 *   redelivery is answered 200 duplicate and adds nothing;
 * - every answer that is not 2xx leaves the inbox as it was, and so does every request
 *   without a fresh correct signature, whatever its answer;
 * - no answer (status line, headers or body), nor anything serve prints, contains the secret;
 *   no answer to a forged request contains the signature a correct sender would have sent.
 *
 * The seed is fixed and printed. To rerun a failure, or to search wider:
 *   PAYSYNC_FUZZ_SEED=<seed> PAYSYNC_FUZZ_RUNS=<runs> [PAYSYNC_FUZZ_PATH=<path>] \
 *     npx vitest run --project sqlite test/receiver/fuzz-receiver.db.test.ts
 * (`--project postgres` for PostgreSQL). PAYSYNC_FUZZ_PATH (printed on failure) replays the
 * failing run alone; PAYSYNC_FUZZ_SHRINK=1 lets fast-check shrink it, slowly: each try replays
 * a whole sequence against the live process. See docs/receiver.md, "Fuzz test".
 */
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/test-redis.ts';
import {
  describePlan,
  forgedPlan,
  redeliveryPlan,
  renderRequest,
  signedHostilePlan,
  unsignedPlan,
  validEventPlan,
  type RequestPlan,
} from './support/fuzz-requests.ts';
import { rawRequest, type RawAnswer } from './support/raw-http.ts';
import { spawnServe, type ServeChild } from './support/serve-child.ts';

const DEFAULT_SEED = 20_261_123;
const DEFAULT_RUNS = 4;
/** Valid events over all runs, as the issue asks. */
const MIN_VALID_EVENTS = 200;

function envInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got ${raw}`);
  return value;
}

const seed = envInteger('PAYSYNC_FUZZ_SEED', DEFAULT_SEED);
const runs = Math.max(1, envInteger('PAYSYNC_FUZZ_RUNS', DEFAULT_RUNS));
const replayPath = process.env.PAYSYNC_FUZZ_PATH || undefined;
const shrink = process.env.PAYSYNC_FUZZ_SHRINK === '1';
const validPerRun = Math.ceil(MIN_VALID_EVENTS / runs);

/** One run: the valid events at random places among hostile requests and redeliveries. */
const scenario = fc
  .tuple(
    fc.array(fc.tuple(validEventPlan, fc.nat()), {
      minLength: validPerRun,
      maxLength: validPerRun + 10,
    }),
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: unsignedPlan },
        { weight: 2, arbitrary: forgedPlan },
        { weight: 3, arbitrary: signedHostilePlan },
        { weight: 1, arbitrary: redeliveryPlan },
      ),
      { minLength: 60, maxLength: 140 },
    ),
  )
  .map(([valid, others]) => {
    const steps: RequestPlan[] = [...others];
    for (const [plan, at] of valid) steps.splice(at % (steps.length + 1), 0, plan);
    return steps;
  });

let database: TestDatabase;
let serve: ServeChild;
let prefix: string;
const secret = `whsec_${randomBytes(24).toString('base64')}`;
const secretKey = Buffer.from(secret.slice('whsec_'.length), 'base64');
/** Forms in which the secret must never be seen. */
const secretForms = [secret, secret.slice('whsec_'.length), secretKey.toString('hex')];

beforeAll(async () => {
  database = await freshDatabase();
  prefix = uniqueRedisPrefix('fuzz');
  serve = await spawnServe({
    PAYSYNC_DATABASE_URL: database.url,
    PAYSYNC_REDIS_URL: TEST_REDIS_URL,
    PAYSYNC_QUEUE_PREFIX: prefix,
    PAYSYNC_WEBHOOK_SECRET: secret,
    PAYSYNC_LOG_LEVEL: 'warn',
  });
});

afterAll(async () => {
  await serve?.stop();
  await database?.cleanup();
  if (prefix) await deleteRedisPrefix(prefix);
});

async function inboxCount(): Promise<number> {
  const row = await database.db
    .selectFrom('webhook_inbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

class InvariantBroken extends Error {
  override readonly name = 'InvariantBroken';
}

function check(condition: boolean, what: string, step: () => string, answer?: RawAnswer): void {
  if (condition) return;
  const head = answer
    ? `\n  answer: ${answer.status ?? 'none'}${answer.socketError ? ` (${answer.socketError})` : ''} ${JSON.stringify(answer.raw.subarray(0, 400).toString('latin1'))}`
    : '';
  throw new InvariantBroken(`${what}\n  ${step()}${head}`);
}

/** The receiver's `error` code, or ` (node)` for an answer Node's HTTP parser gave alone. */
function answerCode(answer: RawAnswer): string {
  if (answer.status === undefined || answer.status < 400) return '';
  try {
    const { error } = JSON.parse(answer.body.toString()) as { error?: unknown };
    return typeof error === 'string' ? ` ${error}` : '';
  } catch {
    return ' (node)';
  }
}

/**
 * Methods after which Node itself drops the connection without an answer. Otherwise a hostile
 * request may see no answer only with a socket error: Node resets a connection it refused
 * (a parse error, a body over the cap) while our bytes were still arriving, and the reset can
 * overtake its 4xx. The process must still be alive at the end.
 */
const SILENT_CLOSE_METHODS = new Set(['CONNECT']);

function isValid(plan: RequestPlan): boolean {
  return plan.category === 'valid' || plan.category === 'redelivery';
}

describe(`receiver fuzz (${testDialect()})`, () => {
  it('survives hostile requests, stores every valid event once and refuses the rest without a trace', async () => {
    console.log(
      `[fuzz] seed=${seed} runs=${runs}${replayPath ? ` path=${replayPath}` : ''}: rerun with PAYSYNC_FUZZ_SEED=${seed} PAYSYNC_FUZZ_RUNS=${runs} npx vitest run --project ${testDialect()} test/receiver/fuzz-receiver.db.test.ts`,
    );
    /** Every valid event sent, by id, with its bytes. */
    const validSent = new Map<string, Buffer>();
    const tally = new Map<string, number>();
    let runNumber = 0;
    let requests = 0;
    const startedAt = Date.now();

    const property = fc.asyncProperty(scenario, async (steps) => {
      runNumber += 1;
      const runTag = `${seed}r${runNumber}_${randomBytes(3).toString('hex')}`;
      const runValid: { id: string; body: Buffer }[] = [];
      let before = await inboxCount();
      for (const [index, plan] of steps.entries()) {
        const eventId = `${plan.category === 'valid' ? 'evt' : plan.category === 'unsigned' ? 'uns' : 'hst'}_fz${runTag}_${index}`;
        if (plan.category === 'redelivery' && runValid.length === 0) continue;
        const original =
          plan.category === 'redelivery'
            ? runValid[(plan.redeliverIndex ?? 0) % runValid.length]
            : undefined;
        const rendered = renderRequest(plan, {
          secret,
          eventId,
          nowSeconds: Math.floor(Date.now() / 1000),
          port: serve.port,
          ...(original ? { original } : {}),
        });
        const step = () => `step ${index} of run ${runNumber}: ${describePlan(plan, rendered)}`;
        const answer = await rawRequest(serve.port, rendered.bytes);
        requests += 1;
        const key = `${plan.category} ${answer.status ?? 'closed'}${answerCode(answer)}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);

        check(
          answer.status !== undefined ||
            SILENT_CLOSE_METHODS.has(plan.method) ||
            (answer.socketError !== undefined && !isValid(plan)),
          'no answer at all',
          step,
          answer,
        );
        check((answer.status ?? 0) < 500, 'a 5xx while the database is up', step, answer);
        for (const form of secretForms) {
          check(!answer.raw.includes(form), 'the answer contains the secret', step, answer);
        }
        if (plan.category === 'unsigned' && rendered.expectedSignature) {
          check(
            !answer.raw.includes(rendered.expectedSignature),
            'the answer contains the signature a correct sender would have sent',
            step,
            answer,
          );
        }

        const after = await inboxCount();
        const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
        if (!ok)
          check(after === before, `a ${answer.status} left ${after - before} row(s)`, step, answer);
        if (plan.category === 'unsigned') {
          check(
            after === before,
            `an unsigned request added ${after - before} row(s)`,
            step,
            answer,
          );
        }
        if (plan.category === 'valid') {
          check(answer.status === 202, 'a valid event was not answered 202', step, answer);
          check(after === before + 1, `a valid event added ${after - before} rows`, step, answer);
          runValid.push({ id: eventId, body: rendered.body });
          validSent.set(eventId, rendered.body);
        }
        if (plan.category === 'redelivery') {
          const parsed = JSON.parse(answer.body.toString()) as { duplicate?: unknown };
          check(
            answer.status === 200 && parsed.duplicate === true,
            'a redelivery was not answered 200 duplicate',
            step,
            answer,
          );
          check(after === before, `a redelivery added ${after - before} rows`, step, answer);
        }
        before = after;
      }
    });

    const details = await fc.check(property, {
      seed,
      numRuns: runs,
      ...(replayPath ? { path: replayPath } : {}),
      endOnFailure: !shrink,
    });
    if (details.failed) {
      const error = details.errorInstance;
      throw new Error(
        `fuzz failed (seed=${details.seed}, path=${details.counterexamplePath ?? '?'}); replay with PAYSYNC_FUZZ_SEED=${details.seed} PAYSYNC_FUZZ_RUNS=${runs} PAYSYNC_FUZZ_PATH=${details.counterexamplePath ?? ''}\n${error instanceof InvariantBroken ? error.message : error instanceof Error ? error.stack : String(error)}`,
      );
    }

    // The process lived through it all.
    expect(serve.alive()).toBe(true);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);

    // Every valid event: exactly one row, holding its bytes.
    if (!replayPath) expect(validSent.size).toBeGreaterThanOrEqual(MIN_VALID_EVENTS);
    const ids = [...validSent.keys()];
    const rows = [];
    for (let at = 0; at < ids.length; at += 200) {
      rows.push(
        ...(await database.db
          .selectFrom('webhook_inbox')
          .select(['event_id', 'raw_body'])
          .where('event_id', 'in', ids.slice(at, at + 200))
          .execute()),
      );
    }
    const rowsById = new Map<string, typeof rows>();
    for (const row of rows) {
      const id = row.event_id ?? '';
      rowsById.set(id, [...(rowsById.get(id) ?? []), row]);
    }
    for (const [id, body] of validSent) {
      const found = rowsById.get(id) ?? [];
      expect(found, `inbox rows for valid event ${id}`).toHaveLength(1);
      const stored = Buffer.from(found[0]!.raw_body);
      expect(createHash('sha256').update(stored).digest('hex')).toBe(
        createHash('sha256').update(body).digest('hex'),
      );
    }

    // Nothing it printed holds the secret either.
    for (const form of secretForms) expect(serve.output()).not.toContain(form);

    console.log(
      `[fuzz] ${requests} requests, ${validSent.size} valid events, ${((Date.now() - startedAt) / 1000).toFixed(1)} s; answers: ${[
        ...tally.entries(),
      ]
        .sort()
        .map(([outcome, n]) => `${outcome}×${n}`)
        .join(', ')}`,
    );
  }, 120_000);
});
