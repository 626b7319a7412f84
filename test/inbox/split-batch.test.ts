import { describe, expect, it } from 'vitest';
import { splitBatch } from '../../src/inbox/index.ts';

const split = (text: string, signedId?: string) => {
  const raw = Buffer.from(text, 'utf8');
  return splitBatch(raw, JSON.parse(text.replace(/^\uFEFF/, '')), signedId);
};

describe('splitting a batch into events (7.A1)', () => {
  it('cuts each element out byte for byte, whatever its strings hold', () => {
    const a = '{"id":"evt_a","note":"a ] } , [ { \\" \\\\ ","n":[1,[2,{"x":"]"}]]}';
    const b = '{"id":"evt_b","note":"Café ✓ \\u005d"}';
    const elements = split(` \n[ ${a} ,\t${b} ]\n`)!;
    expect(elements.map((e) => e.rawBody.toString())).toEqual([a, b]);
    expect(elements.map((e) => e.dedupeKey)).toEqual(['event:evt_a', 'event:evt_b']);
  });

  it('skips a UTF-8 byte order mark, as the JSON parse did', () => {
    const elements = split('\uFEFF[{"id":"evt_bom1"},{"id":"evt_bom2"}]')!;
    expect(elements.map((e) => e.rawBody.toString())).toEqual([
      '{"id":"evt_bom1"}',
      '{"id":"evt_bom2"}',
    ]);
  });

  it('reads the events member, else data; the last duplicate key wins, as in JSON.parse', () => {
    const text =
      '{"data":[{"id":"evt_old"}],"batch":"x","events":{"no":1},"data":[{"id":"evt_new"},{"k":"v"}]}';
    const elements = split(text, 'msg_1')!;
    expect(elements.map((e) => e.rawBody.toString())).toEqual(['{"id":"evt_new"}', '{"k":"v"}']);
    expect(elements.map((e) => e.dedupeKey)).toEqual(['event:evt_new', 'event:msg_1#1']);
    expect(
      split('{"events":[{"id":"evt_e"}],"data":[{"id":"evt_d"}]}')!.map((e) => e.eventId),
    ).toEqual(['evt_e']);
  });

  it('keys id-less elements by the envelope id, else by the hash of their own bytes', () => {
    const [byEnvelope] = split('{"id":"evt_env","data":[{"resourceId":"tr_1"}]}')!;
    expect(byEnvelope!.dedupeKey).toBe('event:evt_env#0');
    const [byHash] = split('[{"resourceId":"tr_1"}]')!;
    expect(byHash!.dedupeKey).toMatch(/^sha256:[0-9a-f]{64}$/);
    // A bare resource in the list is not an event id.
    expect(split('[{"id":"tr_abc","status":"successful"}]', 'msg_2')![0]!.dedupeKey).toBe(
      'event:msg_2#0',
    );
  });

  it.each([
    ['an object with data as an object', '{"type":"t","data":{"id":"tr_1"}}'],
    ['an empty list', '[]'],
    ['an empty events list', '{"events":[]}'],
    ['a list with a non-object', '[{"id":"evt_1"},2]'],
    ['a list of lists', '[[{"id":"evt_1"}]]'],
    ['a string', '"hello"'],
  ])('takes %s as one event', (_name, text) => {
    expect(split(text)).toBeUndefined();
  });
});

describe('an event whose own data is a list is one event, not a batch', () => {
  it.each([
    ['type', { id: 'evt_1', type: 'refund.completed', data: [{ a: 1 }, { b: 2 }] }],
    ['event', { id: 55, event: 'transfer.updated', data: [{ id: 'tr_1' }] }],
    ['eventType', { eventType: 'PAYMENT.CAPTURE', events: [{ x: 1 }] }],
  ])('an object with its own %s is not an envelope', (_field, body) => {
    expect(split(JSON.stringify(body))).toBeUndefined();
  });
});
