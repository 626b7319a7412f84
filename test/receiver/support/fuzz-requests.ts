import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

/**
 * Requests for the receiver fuzz test, as plain data (so fast-check can print and replay
 * them) rendered to raw bytes at send time, when the secret, the clock and the event ids are
 * known. `{{secret}}` anywhere in a target, header value or text body becomes the signing
 * secret, to catch a receiver that echoes what it was sent.
 */

/** What the test may assert about a request's outcome. */
export type Category =
  /** Correctly signed Standard Webhooks event: one JSON object with an id, single header lines. */
  | 'valid'
  /** A valid event of the same run sent again (new timestamp and signature, same id and bytes). */
  | 'redelivery'
  /** Carries a correct v1 signature, but anything else may be hostile (batches, long ids, repeated lines…). */
  | 'signed-hostile'
  /** No correct, fresh v1 signature anywhere in it: it must never add a row. */
  | 'unsigned';

export type HeaderLine = readonly [name: string, value: string];

/** One entry of `webhook-signature`. */
export type SignaturePart =
  /** HMAC of `<id>.<timestamp>.<body>` with the real secret, as `<version>,<base64>`. */
  | { readonly kind: 'hmac'; readonly version: string }
  /** HMAC with another secret. */
  | { readonly kind: 'wrong-secret' }
  /** HMAC over the body with its last byte changed. */
  | { readonly kind: 'tampered' }
  /** HMAC for another webhook-id. */
  | { readonly kind: 'other-id' }
  /** HMAC for a timestamp other than the one sent. */
  | { readonly kind: 'other-timestamp'; readonly delta: number }
  | { readonly kind: 'literal'; readonly text: string };

export type IdSpec = 'normal' | 'missing' | 'empty' | 'long' | 'repeated' | 'latin1';

export type TimestampSpec =
  | { readonly kind: 'offset'; readonly seconds: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'repeated'; readonly seconds: readonly number[] };

export type BodySpec =
  | { readonly kind: 'event'; readonly type: string; readonly data: fc.JsonValue }
  | { readonly kind: 'bytes'; readonly bytes: readonly number[] }
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'nested';
      readonly depth: number;
      readonly open: string;
      readonly close: string;
    }
  | { readonly kind: 'huge'; readonly size: number; readonly fill: number }
  | {
      readonly kind: 'batch';
      readonly count: number;
      readonly wrapper: 'array' | 'events' | 'data';
    }
  | { readonly kind: 'nul'; readonly field: string }
  | { readonly kind: 'gzip-event' };

export interface RequestPlan {
  readonly category: Category;
  /** For `redelivery`: which earlier valid event of the run (modulo their number). */
  readonly redeliverIndex?: number;
  readonly method: string;
  readonly target: string;
  readonly version: 'HTTP/1.1' | 'HTTP/1.0';
  readonly host: boolean;
  /** Every header but the webhook-* ones, in order (content type, encoding, extras). */
  readonly headers: readonly HeaderLine[];
  readonly id: IdSpec;
  readonly timestamp: TimestampSpec;
  /** Undefined: no webhook-signature line. */
  readonly signature: readonly SignaturePart[] | undefined;
  /** The signature parts on one line (space-separated) or one line each. */
  readonly signatureLines: 'one' | 'each';
  readonly body: BodySpec;
  readonly framing: 'length' | 'chunked' | 'length+chunked' | 'none';
  readonly chunkSize: number;
}

export interface RenderContext {
  readonly secret: string;
  /** The event id this step would use (unique per run and step). */
  readonly eventId: string;
  /** For redelivery: the id and body of the event sent again. */
  readonly original?: { readonly id: string; readonly body: Buffer };
  readonly nowSeconds: number;
  readonly port: number;
}

export interface RenderedRequest {
  readonly bytes: Buffer;
  /** The webhook-id sent (first line), if any. */
  readonly webhookId: string | undefined;
  readonly body: Buffer;
  /** The v1 signature a correct sender would have sent for what was sent. */
  readonly expectedSignature: string | undefined;
}

// ---------------------------------------------------------------- arbitraries

const TOLERANCE = 300;

const validContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/cloudevents+json',
  'application/vnd.paysync.event+json; v=1',
);

const anyContentType = fc.oneof(
  { weight: 6, arbitrary: validContentType },
  fc.constantFrom(
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/jsonp',
    'json',
    '*/*',
    '',
    'application/+json',
    'application/json\u00ff',
    'application/json; charset="{{secret}}"',
  ),
  headerText(60),
);

/**
 * Any byte but CR and LF, as a latin1 string (what a raw header value can carry): mostly
 * visible ASCII and obs-text (0x80-0xff), which HTTP allows, sometimes a control byte, which
 * Node's parser refuses before paysync sees the request.
 */
function headerText(maxLength: number): fc.Arbitrary<string> {
  const allowed = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  );
  const anyByte = fc.integer({ min: 0x00, max: 0xff });
  return fc
    .oneof(
      { weight: 8, arbitrary: fc.array(allowed, { maxLength }) },
      { weight: 1, arbitrary: fc.array(anyByte, { maxLength }) },
    )
    .map((codes) => String.fromCharCode(...codes.filter((code) => code !== 0x0d && code !== 0x0a)));
}

const headerName = fc.oneof(
  { weight: 12, arbitrary: fc.stringMatching(/^x-[a-z0-9-]{1,20}$/) },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'user-agent',
      'x-request-id',
      'x-forwarded-for',
      'authorization',
      'cookie',
      'accept',
      'accept-encoding',
      'origin',
      'upgrade',
      'expect',
      'te',
      'trailer',
    ),
  },
  { weight: 1, arbitrary: headerText(20).filter((name) => name.length > 0 && !name.includes(':')) },
);

const extraHeaders = fc.oneof(
  { weight: 4, arbitrary: fc.constant<HeaderLine[]>([]) },
  { weight: 6, arbitrary: fc.array(fc.tuple(headerName, headerText(80)), { maxLength: 6 }) },
  // A secret where a proxy might put one.
  {
    weight: 1,
    arbitrary: fc.constant<HeaderLine[]>([
      ['authorization', 'Bearer {{secret}}'],
      ['x-webhook-secret', '{{secret}}'],
    ]),
  },
  // Oversized: one huge value, or very many lines.
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 8_000, max: 40_000 })
      .map((size): HeaderLine[] => [['x-padding', 'p'.repeat(size)]]),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 100, max: 400 })
      .map((count): HeaderLine[] =>
        Array.from({ length: count }, (_, i): HeaderLine => [`x-many-${i % 7}`, `v${i}`]),
      ),
  },
);

const encodingHeaders = fc.oneof(
  { weight: 12, arbitrary: fc.constant<HeaderLine[]>([]) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, identity', 'IDENTITY')
      .map((value): HeaderLine[] => [['content-encoding', value]]),
  },
  {
    weight: 1,
    arbitrary: fc.constant<HeaderLine[]>([
      ['content-encoding', 'identity'],
      ['content-encoding', 'gzip'],
    ]),
  },
);

const contentTypeLines = fc.oneof(
  { weight: 6, arbitrary: anyContentType.map((value): HeaderLine[] => [['content-type', value]]) },
  { weight: 1, arbitrary: fc.constant<HeaderLine[]>([]) },
  {
    weight: 1,
    arbitrary: fc.tuple(anyContentType, anyContentType).map(([a, b]): HeaderLine[] => [
      ['content-type', a],
      ['Content-Type', b],
    ]),
  },
);

const method = fc.oneof(
  { weight: 24, arbitrary: fc.constant('POST') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'GET',
      'HEAD',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'TRACE',
      'post',
      'PROPFIND',
      'BREW',
      'CONNECT',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z!#$%&'*+.^_`|~-]{1,12}$/) },
);

const target = fc.oneof(
  { weight: 12, arbitrary: fc.constant('/webhooks') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '/webhooks/',
      '/WEBHOOKS',
      '/webhooks?x=1',
      '/webhooks?token={{secret}}',
      '/webhooks/../webhooks',
      '/webhooks%00',
      '/%ff%fe',
      '/healthz',
      '/readyz',
      '/metrics',
      '/',
      '*',
      'http://127.0.0.1/webhooks',
      '/{{secret}}',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 30_000 }).map((n) => `/${'a'.repeat(n)}`) },
  { weight: 1, arbitrary: fc.stringMatching(/^\/[\x21-\x7e]{0,40}$/) },
);

const jsonData = fc.jsonValue({ maxDepth: 4, depthSize: 'small' });

const eventTypes = fc.constantFrom(
  'transfer.updated',
  'transfer.created',
  'payment_intent.succeeded',
  'refund.completed',
  'payment_link.paid',
);

const eventBody = fc.record({
  kind: fc.constant('event' as const),
  type: eventTypes,
  data: jsonData,
});

const hostileBody: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 3, arbitrary: eventBody },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('bytes' as const),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 2_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.oneof(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.constantFrom(
          '',
          '   \r\n\t ',
          'null',
          '0',
          '"{{secret}}"',
          '[]',
          '{}',
          '{"id":',
          '{"id":"{{secret}}"}',
          '\u00ef\u00bb\u00bf{"id":"bom"}',
          '{"__proto__":{"polluted":true},"id":"proto"}',
          '{"constructor":{"prototype":{"x":1}}}',
          '{"id":"\ud800"}',
          '{"id":1e400,"type":1e400}',
        ),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        kind: fc.constant('nested' as const),
        depth: fc.integer({ min: 1_000, max: 120_000 }),
        open: fc.constantFrom('[', '{"a":'),
        close: fc.constant(''),
      })
      .map((spec) => ({ ...spec, close: spec.open === '[' ? ']' : '}' })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('huge' as const),
      size: fc.integer({ min: 200_000, max: 2_000_000 }),
      fill: fc.integer({ min: 0, max: 255 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      count: fc.integer({ min: 0, max: 5 }),
      wrapper: fc.constantFrom('array' as const, 'events' as const, 'data' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('nul' as const),
      field: fc.constantFrom('type', 'event', 'eventType', 'name', 'id', 'eventId'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'gzip-event' as const }) },
);

const framing: fc.Arbitrary<RequestPlan['framing']> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('length' as const) },
  { weight: 4, arbitrary: fc.constant('chunked' as const) },
  { weight: 1, arbitrary: fc.constant('none' as const) },
  { weight: 1, arbitrary: fc.constant('length+chunked' as const) },
);

const bogusPart: fc.Arbitrary<SignaturePart> = fc.oneof(
  fc.constant({ kind: 'wrong-secret' as const }),
  fc.constant({ kind: 'tampered' as const }),
  fc.constant({ kind: 'other-id' as const }),
  fc
    .integer({ min: -5, max: 5 })
    .filter((delta) => delta !== 0)
    .map((delta) => ({ kind: 'other-timestamp' as const, delta })),
  fc.constantFrom('v2', 'v1a', 'V1', 'v0', 'v1 ', '').map((version) => ({
    kind: 'hmac' as const,
    version,
  })),
  fc
    .oneof(
      fc.constantFrom(
        'v1,',
        'v1',
        ',',
        'v1,!!!!',
        'v1,AAAA',
        'v1,====',
        'v1a,abc',
        'v1,{{secret}}',
      ),
      fc.base64String({ maxLength: 64 }).map((b64) => `v1,${b64}`),
      // Visible ASCII only: a valid event may carry these next to its real signature.
      fc.stringMatching(/^[\x21-\x7e]{0,60}$/),
    )
    .map((text) => ({ kind: 'literal' as const, text })),
);

const validPart: SignaturePart = { kind: 'hmac', version: 'v1' };

/** Alternatives around one correct signature: alone, or among up to 40 bogus ones. */
const partsWithValid = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<SignaturePart[]>([]) },
      { weight: 1, arbitrary: fc.array(bogusPart, { minLength: 1, maxLength: 40 }) },
    ),
    fc.nat(),
  )
  .map(([bogus, at]) => {
    const parts = [...bogus];
    parts.splice(at % (parts.length + 1), 0, validPart);
    return parts;
  });

const freshOffset = fc.integer({ min: -240, max: 240 });
const staleOffset = fc.oneof(
  fc.integer({ min: TOLERANCE + 30, max: 10 * 365 * 86_400 }),
  fc.integer({ min: -10 * 365 * 86_400, max: -(TOLERANCE + 30) }),
);

const common = {
  version: fc.constant('HTTP/1.1' as const),
  host: fc.constant(true),
  chunkSize: fc.integer({ min: 1, max: 4096 }),
};

/** A validly signed Standard Webhooks event: the only kind whose fate the test predicts. */
export const validEventPlan: fc.Arbitrary<RequestPlan> = fc.record({
  category: fc.constant('valid' as const),
  method: fc.constant('POST'),
  target: fc.constant('/webhooks'),
  ...common,
  headers: fc
    .tuple(
      validContentType,
      fc.constantFrom<HeaderLine[]>([], [['content-encoding', 'identity']]),
      fc.array(
        fc.tuple(
          fc.constantFrom('user-agent', 'x-request-id', 'x-forwarded-for', 'x-trace'),
          fc.stringMatching(/^[\x20-\x7e]{1,40}$/).map((value) => value.trim() || 'v'),
        ),
        { maxLength: 3 },
      ),
    )
    .map(([type, encoding, extras]): HeaderLine[] => [
      ['content-type', type],
      ...encoding,
      ...extras,
    ]),
  id: fc.constant('normal' as const),
  timestamp: freshOffset.map((seconds) => ({ kind: 'offset' as const, seconds })),
  signature: partsWithValid,
  signatureLines: fc.constant('one' as const),
  body: eventBody,
  framing: fc.constantFrom('length' as const, 'chunked' as const),
});

export const redeliveryPlan: fc.Arbitrary<RequestPlan> = validEventPlan.chain((plan) =>
  fc.nat().map((redeliverIndex) => ({ ...plan, category: 'redelivery' as const, redeliverIndex })),
);

/** Carries a correct signature, everything else hostile. */
export const signedHostilePlan: fc.Arbitrary<RequestPlan> = fc.record({
  category: fc.constant('signed-hostile' as const),
  method: fc.oneof({ weight: 6, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: method }),
  target: fc.oneof(
    { weight: 6, arbitrary: fc.constant('/webhooks') },
    { weight: 1, arbitrary: target },
  ),
  version: fc.constantFrom('HTTP/1.1' as const, 'HTTP/1.0' as const),
  host: fc.oneof(
    { weight: 9, arbitrary: fc.constant(true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
  chunkSize: common.chunkSize,
  headers: fc
    .tuple(contentTypeLines, encodingHeaders, extraHeaders)
    .map(([type, encoding, extras]) => [...type, ...encoding, ...extras]),
  id: fc.constantFrom<IdSpec>('normal', 'normal', 'normal', 'long', 'repeated', 'latin1'),
  timestamp: fc.oneof(
    { weight: 6, arbitrary: freshOffset.map((seconds) => ({ kind: 'offset' as const, seconds })) },
    {
      weight: 1,
      arbitrary: fc
        .array(freshOffset, { minLength: 2, maxLength: 3 })
        .map((seconds) => ({ kind: 'repeated' as const, seconds })),
    },
  ),
  signature: partsWithValid,
  signatureLines: fc.constantFrom('one' as const, 'one' as const, 'each' as const),
  body: hostileBody,
  framing,
});

/** No fresh correct signature anywhere: whatever else it is, it must never be stored. */
export const unsignedPlan: fc.Arbitrary<RequestPlan> = fc
  .record({
    category: fc.constant('unsigned' as const),
    method,
    target,
    version: fc.constantFrom('HTTP/1.1' as const, 'HTTP/1.0' as const),
    host: fc.oneof(
      { weight: 9, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    chunkSize: common.chunkSize,
    headers: fc
      .tuple(contentTypeLines, encodingHeaders, extraHeaders)
      .map(([type, encoding, extras]) => [...type, ...encoding, ...extras]),
    id: fc.constantFrom<IdSpec>('normal', 'normal', 'normal', 'missing', 'empty', 'long', 'latin1'),
    // With a stale or future timestamp even the real secret's signature must be refused.
    stale: fc.boolean(),
    timestampLiteral: fc.option(
      fc.constantFrom(
        '',
        'abc',
        '-1',
        '1e9',
        '0x10',
        ' 123',
        '99999999999999',
        '1.5',
        '{{secret}}',
      ),
      { freq: 4 },
    ),
    missingTimestamp: fc.boolean(),
    offsetFresh: freshOffset,
    offsetStale: staleOffset,
    signature: fc.option(
      fc.oneof(
        { weight: 6, arbitrary: fc.array(bogusPart, { minLength: 1, maxLength: 8 }) },
        // Many alternatives, up to more than a header may hold.
        { weight: 1, arbitrary: fc.array(bogusPart, { minLength: 9, maxLength: 400 }) },
      ),
      { freq: 6 },
    ),
    realSignature: fc.boolean(),
    signatureLines: fc.constantFrom('one' as const, 'one' as const, 'each' as const),
    body: hostileBody,
    framing,
  })
  .map((draft): RequestPlan => {
    const staleTimestamp = draft.stale || draft.timestampLiteral !== null;
    const timestamp: TimestampSpec =
      draft.timestampLiteral !== null
        ? { kind: 'literal', text: draft.timestampLiteral }
        : draft.missingTimestamp
          ? { kind: 'missing' }
          : { kind: 'offset', seconds: draft.stale ? draft.offsetStale : draft.offsetFresh };
    const parts = draft.signature ?? undefined;
    // The real secret's signature only where the timestamp makes it unacceptable.
    const signature =
      parts && draft.realSignature && staleTimestamp && draft.timestampLiteral === null
        ? [...parts, validPart]
        : parts;
    return {
      category: draft.category,
      method: draft.method,
      target: draft.target,
      version: draft.version,
      host: draft.host,
      chunkSize: draft.chunkSize,
      headers: draft.headers,
      id: draft.id,
      timestamp,
      signature,
      signatureLines: draft.signatureLines,
      body: draft.body,
      framing: draft.framing,
    };
  });

/**
 * Well framed like a valid event (POST, JSON, one line per header), but its signature is
 * wrong in one way: the real secret's HMAC with a stale or future timestamp or under another
 * version tag, only bogus alternatives, or a webhook header missing. Aims at the signature
 * check itself, which most random requests never reach.
 */
export const forgedPlan: fc.Arbitrary<RequestPlan> = fc
  .record({
    valid: validEventPlan,
    flaw: fc.constantFrom('stale', 'version', 'bogus', 'no-id', 'no-timestamp', 'no-signature'),
    stale: staleOffset,
    version: fc.constantFrom('v2', 'v1a', 'V1', 'v0', ''),
    bogus: fc.oneof(
      { weight: 4, arbitrary: fc.array(bogusPart, { minLength: 1, maxLength: 8 }) },
      { weight: 1, arbitrary: fc.array(bogusPart, { minLength: 9, maxLength: 60 }) },
    ),
  })
  .map(({ valid, flaw, stale, version, bogus }): RequestPlan => {
    const plan: RequestPlan = { ...valid, category: 'unsigned' };
    switch (flaw) {
      case 'stale':
        return { ...plan, timestamp: { kind: 'offset', seconds: stale } };
      case 'version':
        return { ...plan, signature: [{ kind: 'hmac', version }] };
      case 'bogus':
        return { ...plan, signature: bogus };
      case 'no-id':
        return { ...plan, id: 'missing' };
      case 'no-timestamp':
        return { ...plan, timestamp: { kind: 'missing' } };
      case 'no-signature':
        return { ...plan, signature: undefined };
    }
  });

// ---------------------------------------------------------------- rendering

function hmac(key: Buffer, id: string, timestamp: string, body: Buffer): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

const OTHER_KEY = Buffer.from('an entirely different signing key');

function withSecret(text: string, secret: string): string {
  return text.split('{{secret}}').join(secret);
}

function eventJson(id: string, type: string, data: unknown, nowSeconds: number): string {
  return JSON.stringify({
    id,
    type,
    createdAt: new Date(nowSeconds * 1000).toISOString(),
    mode: 'sandbox',
    data,
  });
}

function renderBody(spec: BodySpec, context: RenderContext): Buffer {
  const { eventId, nowSeconds, secret } = context;
  switch (spec.kind) {
    case 'event':
      return Buffer.from(eventJson(eventId, spec.type, spec.data, nowSeconds));
    case 'bytes':
      return Buffer.from(spec.bytes);
    case 'text':
      return Buffer.from(withSecret(spec.text, secret));
    case 'nested':
      return Buffer.from(`${spec.open.repeat(spec.depth)}1${spec.close.repeat(spec.depth)}`);
    case 'huge':
      return Buffer.alloc(spec.size, spec.fill);
    case 'batch': {
      const events = Array.from({ length: spec.count }, (_, i) =>
        JSON.parse(eventJson(`${eventId}_${i}`, 'transfer.updated', { i }, nowSeconds)),
      );
      const value = spec.wrapper === 'array' ? events : { [spec.wrapper]: events };
      return Buffer.from(JSON.stringify(value));
    }
    case 'nul':
      return Buffer.from(
        JSON.stringify({ id: eventId, type: 'transfer.updated', [spec.field]: `a\u0000b` }),
      );
    case 'gzip-event':
      return gzipSync(eventJson(eventId, 'transfer.updated', {}, nowSeconds));
  }
}

function webhookIdLines(spec: IdSpec, eventId: string): string[] {
  switch (spec) {
    case 'normal':
      return [eventId];
    case 'missing':
      return [];
    case 'empty':
      return ['  '];
    case 'long':
      return [`${eventId}_${'x'.repeat(240)}`];
    case 'repeated':
      return [eventId, `${eventId}_second`];
    case 'latin1':
      return [`${eventId}_\u00e9\u00ff`];
  }
}

function timestampLines(spec: TimestampSpec, nowSeconds: number, secret: string): string[] {
  switch (spec.kind) {
    case 'offset':
      return [String(nowSeconds + spec.seconds)];
    case 'missing':
      return [];
    case 'literal':
      return [withSecret(spec.text, secret)];
    case 'repeated':
      return spec.seconds.map((seconds) => String(nowSeconds + seconds));
  }
}

function signatureText(
  part: SignaturePart,
  signed: { key: Buffer; id: string; timestamp: string; body: Buffer; secret: string },
): string {
  const { key, id, timestamp, body } = signed;
  switch (part.kind) {
    case 'hmac':
      return `${part.version},${hmac(key, id, timestamp, body)}`;
    case 'wrong-secret':
      return `v1,${hmac(OTHER_KEY, id, timestamp, body)}`;
    case 'tampered': {
      const changed = Buffer.from(body);
      if (changed.length > 0) changed[changed.length - 1] = changed.at(-1)! ^ 0x01;
      else return `v1,${hmac(key, id, timestamp, Buffer.from(' '))}`;
      return `v1,${hmac(key, id, timestamp, changed)}`;
    }
    case 'other-id':
      return `v1,${hmac(key, `${id}_other`, timestamp, body)}`;
    case 'other-timestamp':
      return `v1,${hmac(key, id, String(Number(timestamp) + part.delta), body)}`;
    case 'literal':
      return withSecret(part.text, signed.secret);
  }
}

/** The request's bytes, exactly as they go on the wire. */
export function renderRequest(plan: RequestPlan, context: RenderContext): RenderedRequest {
  const { secret, nowSeconds } = context;
  const key = secretKey(secret);
  const body = context.original ? context.original.body : renderBody(plan.body, context);
  const ids = context.original ? [context.original.id] : webhookIdLines(plan.id, context.eventId);
  const timestamps = timestampLines(plan.timestamp, nowSeconds, secret);
  const signedId = ids[0] ?? '';
  const signedTimestamp = timestamps[0] ?? String(nowSeconds);
  const signed = { key, id: signedId, timestamp: signedTimestamp, body, secret };

  const lines: HeaderLine[] = [];
  if (plan.host) lines.push(['Host', `127.0.0.1:${context.port}`]);
  for (const [name, value] of plan.headers) lines.push([name, withSecret(value, secret)]);
  for (const id of ids) lines.push(['webhook-id', id]);
  for (const timestamp of timestamps) lines.push(['webhook-timestamp', timestamp]);
  if (plan.signature) {
    const texts = plan.signature.map((part) => signatureText(part, signed));
    if (plan.signatureLines === 'one') lines.push(['webhook-signature', texts.join(' ')]);
    else for (const text of texts) lines.push(['webhook-signature', text]);
  }
  lines.push(['Connection', 'close']);

  let payload = body;
  if (plan.framing === 'length') {
    lines.push(['Content-Length', String(body.length)]);
  } else if (plan.framing === 'chunked' || plan.framing === 'length+chunked') {
    if (plan.framing === 'length+chunked') lines.push(['Content-Length', String(body.length)]);
    lines.push(['Transfer-Encoding', 'chunked']);
    const chunks: Buffer[] = [];
    for (let at = 0; at < body.length; at += plan.chunkSize) {
      const chunk = body.subarray(at, at + plan.chunkSize);
      chunks.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    payload = Buffer.concat(chunks);
  }
  // framing 'none': no length at all; the server must take the body as empty.

  const head =
    `${plan.method} ${withSecret(plan.target, secret)} ${plan.version}\r\n` +
    lines.map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    '\r\n';
  return {
    bytes: Buffer.concat([Buffer.from(head, 'latin1'), payload]),
    webhookId: ids[0],
    body,
    expectedSignature:
      ids[0] === undefined ? undefined : hmac(key, signedId, signedTimestamp, body),
  };
}

/** A short, printable account of a plan, for failure messages. */
export function describePlan(plan: RequestPlan, rendered: RenderedRequest): string {
  const preview = (text: string | undefined = 'none') =>
    JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  const body = rendered.body;
  return [
    `${plan.category}: ${plan.method} ${preview(plan.target)} ${plan.version} host=${plan.host} framing=${plan.framing}`,
    `headers: ${preview(JSON.stringify(plan.headers))}`,
    `webhook-id: ${plan.id}, timestamp: ${JSON.stringify(plan.timestamp)}, signature (${plan.signatureLines}): ${preview(JSON.stringify(plan.signature))}`,
    `body (${plan.body.kind}, ${body.length} bytes): ${preview(body.subarray(0, 400).toString('latin1'))}`,
  ].join('\n  ');
}
