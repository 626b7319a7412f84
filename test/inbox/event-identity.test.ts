import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventIdentity, storedHeaders } from '../../src/inbox/index.ts';

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('event identity (the dedupe key)', () => {
  it.each([
    [
      'the signed header id wins',
      { id: 'evt_body' },
      'evt_header',
      'event:evt_header',
      'evt_header',
    ],
    ['the body id', { id: 'evt_1', type: 'x' }, undefined, 'event:evt_1', 'evt_1'],
    ['eventId in the body', { eventId: 'e-42' }, undefined, 'event:e-42', 'e-42'],
    ['event_id in the body', { event_id: 'e-43' }, undefined, 'event:e-43', 'e-43'],
    [
      'a bare transfer as the body is not an event id',
      { id: 'tr_abc', status: 's' },
      undefined,
      'sha',
      undefined,
    ],
    ['a bare refund (numeric id) neither', { id: '1001' }, undefined, 'sha', undefined],
    ['no id at all', { type: 'payment.updated' }, undefined, 'sha', undefined],
    ['an array body', [{ id: 'evt_1' }], undefined, 'sha', undefined],
  ])('%s', (_name, body, header, key, eventId) => {
    const raw = Buffer.from(JSON.stringify(body));
    const identity = eventIdentity(raw, body, header);
    expect(identity.dedupeKey).toBe(key === 'sha' ? sha(JSON.stringify(body)) : key);
    expect(identity.eventId).toBe(eventId);
  });

  it('keeps long event ids distinct (7.A3): keyed by their sha256, stored whole', () => {
    const body = { type: 'transfer.updated', data: { id: 'tr_x' } };
    const raw = Buffer.from(JSON.stringify(body));
    const longA = `evt_${'a'.repeat(300)}`;
    const longB = `evt_${'a'.repeat(299)}b`;
    const a = eventIdentity(raw, body, longA);
    const b = eventIdentity(raw, body, longB);
    expect(a.dedupeKey).not.toBe(b.dedupeKey);
    expect(a.dedupeKey).toBe(`event-sha256:${createHash('sha256').update(longA).digest('hex')}`);
    expect(a.eventId).toBe(longA);
    expect(eventIdentity(raw, body, longA).dedupeKey).toBe(a.dedupeKey);
    // A long id in the body counts too; exactly 200 characters is still keyed as it is.
    const inBody = { id: `e${'x'.repeat(250)}` };
    expect(eventIdentity(Buffer.from('{}'), inBody).eventId).toBe(inBody.id);
    expect(eventIdentity(raw, body, 'e'.repeat(200)).dedupeKey).toBe(`event:${'e'.repeat(200)}`);
  });

  it('reads the type from type, event or name', () => {
    expect(eventIdentity(Buffer.from('{}'), { type: 'a' }).eventType).toBe('a');
    expect(eventIdentity(Buffer.from('{}'), { event: 'b' }).eventType).toBe('b');
    expect(eventIdentity(Buffer.from('{}'), { name: 'c' }).eventType).toBe('c');
    expect(eventIdentity(Buffer.from('{}'), {}).eventType).toBeUndefined();
  });
});

describe('stored headers', () => {
  it('keeps the allow-list and the extra names, never credentials', () => {
    const kept = storedHeaders(
      {
        'content-type': 'application/json',
        'webhook-signature': 'v1,abc',
        authorization: 'Bearer x',
        cookie: 'a=b',
        apikey: 'k',
        'x-sig': 'ff',
      },
      ['x-sig'],
    );
    expect(kept).toEqual({
      'content-type': 'application/json',
      'webhook-signature': 'v1,abc',
      'x-sig': 'ff',
    });
  });
});
