import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';
import {
  deliveriesOf,
  seedDelivery,
  seedRelayEvent,
  startConsumer,
  type SeededEvent,
} from '../support/relay-endpoint-rows.ts';

let database: TestDatabase;
let env: Record<string, string>;
let consumer: Awaited<ReturnType<typeof startConsumer>>;
/** Set to force an answer; otherwise the consumer verifies the signature like a merchant would. */
let consumerAnswer: { status: number; body: string } | undefined;
/** The secrets the consumer accepts (the endpoint's, once added). */
const consumerSecrets: string[] = [];

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

beforeAll(async () => {
  database = await freshDatabase();
  // Debug logging: whatever a command logs, a secret must not be in it.
  env = { PAYSYNC_DATABASE_URL: database.url, PAYSYNC_LOG_LEVEL: 'debug' };
  consumer = await startConsumer((request) => {
    if (consumerAnswer) return consumerAnswer;
    const verified = consumerSecrets.some((each) => {
      try {
        new Webhook(each).verify(request.body, request.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    });
    return verified ? { status: 200, body: 'thanks' } : { status: 401, body: 'bad signature' };
  });
});
afterAll(async () => {
  await consumer?.close();
  await database?.cleanup();
});

/** The one stderr line of a refused command. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('paysync endpoints', () => {
  let id: string;
  let secret: string;
  let firstEvent: SeededEvent;
  const secrets: string[] = [];
  const everything: string[] = [];
  /**
   * Runs `paysync endpoints <args>` in this process (issue 39); `process` runs it as a real
   * child, which a few calls keep to prove the boundary: the secret on stdout with exit 0, a
   * failed ping's exit 1, a refusal's exit 2 on stderr.
   */
  const run = async (
    args: string[],
    extra: Record<string, string> = {},
    how: 'in-process' | 'process' = 'in-process',
  ) => {
    const options = { env: { ...env, ...extra } };
    const result =
      how === 'process'
        ? await runCli(['endpoints', ...args], options)
        : await runCliInProcess(['endpoints', ...args], options);
    everything.push(result.stdout, result.stderr);
    return result;
  };

  it('--help names every subcommand, and a subcommand says what it does and how it exits', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const sub of [
      'add',
      'list',
      'show',
      'disable',
      'enable',
      'delete',
      'rotate-secret',
      'test',
      'redeliver',
      'pending',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    }
    const redeliver = await run(['redeliver', '--help']);
    expect(redeliver.code).toBe(0);
    expect(redeliver.stdout).toContain('--since <time>');
    expect(redeliver.stdout).toContain('same webhook-id');
    expect(redeliver.stdout).toContain('Exit codes: 0 queued');
  });

  it('add prints the id and the secret once; --json gives both', async () => {
    const added = await run(
      [
        'add',
        '--url',
        consumer.url,
        '--events',
        'transfer.*,day.verdict',
        '--description',
        'the shop',
      ],
      {},
      'process',
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const match =
      /Added endpoint (ep_[0-9a-f]{20}) → (\S+) \(events: transfer\.\*,day\.verdict\)/.exec(
        added.stdout,
      );
    expect(match?.[2]).toBe(consumer.url);
    id = match![1]!;
    secret = /^\s+(whsec_\S+)$/m.exec(added.stdout)![1]!;
    secrets.push(secret);
    consumerSecrets.push(secret);
    expect(added.stdout).toContain('It is shown only now');

    const json = await run(['add', '--url', `${consumer.url}/two`, '--json']);
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as {
      endpoint: { id: string; events: null };
      secret: string;
    };
    expect(body.endpoint.events).toBeNull();
    expect(body.secret).toMatch(/^whsec_/);
    secrets.push(body.secret);
    const deleted = await run(['delete', body.endpoint.id, '--yes']);
    expect(deleted.code).toBe(0);
  });

  it('add refuses a bad URL, a bad pattern, http in live: exit 2, one line naming the flag, nothing added', async () => {
    const before = await database.db.selectFrom('relay_endpoints').select('id').execute();
    const cases: [string[], Record<string, string>, string][] = [
      [['--url', 'not a url'], {}, '--url "not a url" is not a URL'],
      [
        ['--url', 'https://a.example/h', '--events', 'transfer.*,transfers'],
        {},
        '--events: "transfers" is not an event type',
      ],
      [
        ['--url', 'http://shop.example.com/h'],
        { PAYSYNC_ENVIRONMENT: 'live' },
        '--url must be https:// in live',
      ],
      [
        ['--url', 'https://127.0.0.1/h'],
        { PAYSYNC_ENVIRONMENT: 'live' },
        'internal address (127.0.0.1)',
      ],
    ];
    for (const [args, extra, message] of cases) {
      const result = await run(['add', ...args], extra);
      expect(result.code, args.join(' ')).toBe(2);
      expect(oneLine(result.stderr)).toMatch(/^paysync endpoints add: --(url|events)/);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
    const after = await database.db.selectFrom('relay_endpoints').select('id').execute();
    expect(after).toHaveLength(before.length);
  });

  it('list and show give the endpoint and its health, never the secret', async () => {
    const event = await seedRelayEvent(database.db, {
      type: 'transfer.succeeded',
      subject: 'transfer:tr_cli1',
      createdAt: hoursAgo(2),
    });
    firstEvent = event;
    await seedDelivery(database.db, {
      endpointId: id,
      event,
      state: 'pending',
      at: hoursAgo(2),
      attempts: 1,
      attempt: { outcome: 'failed', statusCode: 502, excerpt: 'bad gateway' },
    });
    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `${id}\\s+${consumer.url}\\s+transfer\\.\\*,day\\.verdict\\s+healthy\\s+-\\s+1\\s+2h 0m\\s+1 failed`,
      ),
    );
    const listed = JSON.parse((await run(['list', '--json'])).stdout) as {
      endpoint: { id: string };
      health: { pending: number; last24h: { failed: number } };
    }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      endpoint: { id },
      health: { pending: 1, last24h: { failed: 1 } },
    });

    const show = await run(['show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Description   the shop');
    expect(show.stdout).toMatch(/Pending\s+1 \(oldest emitted \S+, 2h 0m ago\)/);
    expect(show.stdout).toMatch(
      new RegExp(
        `${event.eventId}\\s+transfer\\.succeeded\\s+1\\s+failed\\s+502\\s+12\\s+bad gateway`,
      ),
    );
    const shown = JSON.parse((await run(['show', id, '--json'])).stdout) as {
      attempts: { statusCode: number; excerpt: string }[];
    };
    expect(shown.attempts).toEqual([
      expect.objectContaining({ statusCode: 502, excerpt: 'bad gateway' }),
    ]);
  });

  it('an unknown endpoint exits 1 and a malformed id exits 2, in one line', async () => {
    const unknown = await run(['show', 'ep_00000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toBe(
      'paysync endpoints show: no endpoint ep_00000000000000000000; `paysync endpoints list` shows the endpoints',
    );
    const malformed = await run(['disable', 'tr_123']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('"tr_123" is not an endpoint id');
  });

  it('test pings the consumer, which verifies the signature; a failing answer exits 1', async () => {
    const before = consumer.received.length;
    const ok = await run(['test', id]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^ping evt_ping_\w+ → \S+: delivered 200 in \d+ ms\nanswer: thanks\n$/,
    );
    const request = consumer.received[before]!;
    const payload = new Webhook(secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(payload).toMatchObject({ type: 'ping', environment: 'sandbox' });

    consumerAnswer = { status: 503, body: 'maintenance' };
    try {
      const failed = await run(['test', id, '--json'], {}, 'process');
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({
        outcome: 'failed',
        statusCode: 503,
        excerpt: 'maintenance',
      });
    } finally {
      consumerAnswer = undefined;
    }
  });

  it('rotate-secret prints a new secret once; pings then carry both signatures', async () => {
    const rotated = await run(['rotate-secret', id]);
    expect(rotated.code).toBe(0);
    const fresh = /^\s+(whsec_\S+)$/m.exec(rotated.stdout)![1]!;
    secrets.push(fresh);
    expect(fresh).not.toBe(secret);
    expect(rotated.stdout).toMatch(/keeps signing too until \d{4}-\d{2}-\d{2}T/);
    // A consumer that knows only the old secret, then only the new one, accepts both pings.
    expect((await run(['test', id])).stdout).toContain('delivered 200');
    consumerSecrets.splice(0, consumerSecrets.length, fresh);
    expect((await run(['test', id])).stdout).toContain('delivered 200');
    const request = consumer.received.at(-1)!;
    for (const each of [fresh, secret]) {
      expect(() =>
        new Webhook(each).verify(request.body, request.headers as Record<string, string>),
      ).not.toThrow();
    }
    const shown = await run(['show', id]);
    expect(shown.stdout).toMatch(/Secret\s+rotated; the previous one also signs until /);
  });

  it('disable and enable: the state, and the pending delivery due again', async () => {
    const disabled = await run(['disable', id]);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toBe(
      `Disabled endpoint ${id} (operator). Enable it again: paysync endpoints enable ${id}\n`,
    );
    expect((await run(['list'])).stdout).toContain('disabled (operator)');
    const enabled = await run(['enable', id, '--json']);
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({
      endpoint: { status: 'enabled' },
      pending: 1,
    });
  });

  describe('redeliver and pending', () => {
    let events: SeededEvent[];
    beforeAll(async () => {
      events = [];
      for (const [type, subject, hours] of [
        ['transfer.succeeded', 'transfer:tr_r1', 30],
        ['refund.succeeded', 'refund:rf_r1', 29],
        ['day.verdict', 'day:2026-11-18', 28],
        ['transfer.failed', 'transfer:tr_r2', 27],
      ] as const) {
        events.push(
          await seedRelayEvent(database.db, { type, subject, createdAt: hoursAgo(hours) }),
        );
      }
      await seedDelivery(database.db, {
        endpointId: id,
        event: events[0]!,
        state: 'delivered',
        at: hoursAgo(30),
        attempt: { outcome: 'delivered', statusCode: 200 },
      });
      await seedDelivery(database.db, {
        endpointId: id,
        event: events[3]!,
        state: 'gave_up',
        attempts: 8,
        at: hoursAgo(20),
        lastError: 'ECONNREFUSED',
      });
    });

    it('pending lists pending and given-up deliveries, oldest first', async () => {
      const pending = await run(['pending', '--endpoint', id]);
      expect(pending.code).toBe(0);
      const lines = pending.stdout.trim().split('\n');
      expect(lines[0]).toMatch(
        /^ENDPOINT\s+EVENT\s+TYPE\s+SUBJECT\s+STATE\s+ATTEMPTS\s+LAST ERROR\s+NEXT$/,
      );
      expect(lines.slice(1).map((line) => line.split(/\s+/)[1])).toEqual([
        firstEvent.eventId,
        events[3]!.eventId,
      ]);
      expect(lines[1]).toMatch(
        /transfer\.succeeded\s+transfer:tr_cli1\s+pending\s+1\s+HTTP 502\s+\d{4}-/,
      );
      expect(lines[2]).toMatch(
        /transfer\.failed\s+transfer:tr_r2\s+gave_up\s+8\s+ECONNREFUSED\s+-$/,
      );
    });

    it('--since queues the subscribed events in event order, resetting the delivered and given-up ones', async () => {
      const result = await run(['redeliver', id, '--since', '31h']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      // Subscribed: transfer.* and day.verdict, so not the refund; and the seeded pending one.
      expect(result.stdout).toMatch(
        new RegExp(
          `^endpoints redeliver: 4 events emitted since \\S+Z: 3 queued for ${id} \\(1 new, 2 sent again\\), 1 already pending\\.\\n$`,
        ),
      );
      const rows = await deliveriesOf(database.db, id);
      expect(rows.map((row) => row.eventId)).toEqual([
        firstEvent.eventId, // pending already (emitted later, but seeded first: a lower id)
        events[0]!.eventId,
        events[2]!.eventId,
        events[3]!.eventId,
      ]);
      expect(rows.every((row) => row.state === 'pending')).toBe(true);
      expect(rows.slice(1).map((row) => row.attempts)).toEqual([0, 0, 0]);

      const json = await run(['redeliver', id, '--event', events[2]!.eventId, '--json']);
      expect(JSON.parse(json.stdout)).toEqual({
        matched: 1,
        created: 0,
        reset: 0,
        alreadyPending: 1,
        endpointEnabled: true,
      });
      const typed = await run(['redeliver', id, '--since', '31h', '--type', 'refund.*']);
      expect(typed.stdout).toContain('0 events emitted since');
    });

    it('a large redelivery works in batches and shows progress on stderr', async () => {
      const at = hoursAgo(40);
      const rows = Array.from({ length: 1_200 }, (_, i) => ({
        event_id: `evt_bulk${String(i).padStart(5, '0')}`,
        type: 'transfer.succeeded',
        subject: `transfer:tr_bulk${i % 300}`,
        dedupe_key: `test:bulk:${i}`,
        environment: 'sandbox',
        occurred_at: at,
        data: '{}',
        created_at: at,
      }));
      for (let i = 0; i < rows.length; i += 200) {
        await database.db
          .insertInto('relay_events')
          .values(rows.slice(i, i + 200))
          .execute();
      }
      const result = await run(['redeliver', id, '--since', hoursAgo(41), '--type', 'transfer.*']);
      expect(result.code).toBe(0);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^endpoints redeliver: 500\/\d+ events \(\d+%\)$/),
        expect.stringMatching(/^endpoints redeliver: 1000\/\d+ events \(\d+%\)$/),
        expect.stringMatching(/^endpoints redeliver: (\d+)\/\1 events \(100%\)$/),
      ]);
      expect(result.stdout).toContain('1200 new');
      const queued = await deliveriesOf(database.db, id);
      const bulk = queued.filter((row) => row.eventId.startsWith('evt_bulk'));
      expect(bulk.map((row) => row.eventId)).toEqual(rows.map((row) => row.event_id));
    });

    it('refuses bad redeliver flags in one line: exit 2; an unknown event exits 1', async () => {
      const cases: [string[], number, string][] = [
        [['redeliver', id], 2, 'say which events: --since <time>'],
        [['redeliver', id, '--since', '1d', '--event', events[0]!.eventId], 2, 'not both'],
        [['redeliver', id, '--since', 'last week'], 2, '--since "last week" is not a time'],
        [
          ['redeliver', id, '--since', '1d', '--type', 'transfer.nope'],
          2,
          '--type: "transfer.nope"',
        ],
        [['redeliver', id, '--event', 'evt_unknown'], 1, '--event: no event evt_unknown'],
      ];
      for (const [args, code, message] of cases) {
        const result = await run(args);
        expect(result.code, args.join(' ')).toBe(code);
        expect(result.stderr, args.join(' ')).toContain(message);
      }
    });

    it('the former name `endpoints replay` still works, answering as before, hidden from --help', async () => {
      const later = await seedRelayEvent(database.db, {
        type: 'transfer.succeeded',
        subject: 'transfer:tr_r3',
        createdAt: hoursAgo(1),
      });
      const result = await run(['replay', id, '--event', later.eventId]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `endpoints replay: event ${later.eventId}: 1 queued for ${id} (1 new, 0 sent again), 0 already pending.\n`,
      );
      const queued = (await deliveriesOf(database.db, id)).find(
        (row) => row.eventId === later.eventId,
      );
      expect(queued).toMatchObject({ state: 'pending', attempts: 0 });
      const refused = await run(['replay', id]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('endpoints replay: say which events: --since <time>');

      const help = await run(['--help']);
      expect(help.stdout).not.toMatch(/^ {2}replay\b/m);
      expect(help.stdout).toContain('`endpoints replay` still works');
      const redeliverHelp = await run(['redeliver', '--help']);
      expect(redeliverHelp.stdout).toContain('`paysync endpoints replay` is its former name');
      const replayHelp = await run(['replay', '--help']);
      expect(replayHelp.code).toBe(0);
      expect(replayHelp.stdout).toContain('paysync endpoints redeliver');
      expect(replayHelp.stdout).toContain('Exit codes: 0 queued');
    });
  });

  it('delete asks for --yes, then deletes; the secret was never printed after add and rotate', async () => {
    const asked = await run(['delete', id], {}, 'process');
    expect(asked.code).toBe(2);
    expect(oneLine(asked.stderr)).toContain('add --yes to do it');
    expect((await run(['list', '--json'])).stdout).toContain(id);
    const deleted = await run(['delete', id, '--yes', '--json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ deleted: { id } });
    expect((await run(['list'])).stdout).toContain('No endpoints.');

    // Each secret appears exactly once in everything the commands printed: where it was made.
    const printed = everything.join('\n');
    for (const each of secrets) expect(printed.split(each)).toHaveLength(2);
  });
});
