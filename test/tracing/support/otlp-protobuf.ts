/**
 * Decodes an OTLP ExportTraceServiceRequest from its protobuf encoding (the body of
 * `http/protobuf`, the exporters' default), by the field numbers of opentelemetry-proto's
 * `trace/v1/trace.proto` and `common/v1/common.proto`, into the shape the OTLP JSON encoding
 * has (ids as hex), so the receiver reads both encodings the same way.
 */
type Fields = Map<number, (bigint | Buffer)[]>;

function readVarint(buffer: Buffer, start: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  let offset = start;
  for (;;) {
    const byte = buffer[offset++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, offset];
    shift += 7n;
  }
}

/** One message's fields by number: varints and fixed as bigint, length-delimited as bytes. */
function fieldsOf(buffer: Buffer): Fields {
  const fields: Fields = new Map();
  let offset = 0;
  while (offset < buffer.length) {
    const [tag, afterTag] = readVarint(buffer, offset);
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    let value: bigint | Buffer;
    if (wireType === 0) {
      [value, offset] = readVarint(buffer, afterTag);
    } else if (wireType === 1) {
      value = buffer.readBigUInt64LE(afterTag);
      offset = afterTag + 8;
    } else if (wireType === 5) {
      value = BigInt(buffer.readUInt32LE(afterTag));
      offset = afterTag + 4;
    } else if (wireType === 2) {
      const [length, afterLength] = readVarint(buffer, afterTag);
      value = buffer.subarray(afterLength, afterLength + Number(length));
      offset = afterLength + Number(length);
    } else {
      throw new Error(`protobuf wire type ${wireType} is not one OTLP uses`);
    }
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

const bytes = (fields: Fields, field: number): Buffer[] =>
  (fields.get(field) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
const number = (fields: Fields, field: number): bigint | undefined => {
  const value = fields.get(field)?.[0];
  return typeof value === 'bigint' ? value : undefined;
};
const text = (fields: Fields, field: number): string => bytes(fields, field)[0]?.toString() ?? '';
const hex = (fields: Fields, field: number): string =>
  bytes(fields, field)[0]?.toString('hex') ?? '';

function anyValue(buffer: Buffer): Record<string, unknown> {
  const fields = fieldsOf(buffer);
  if (fields.has(1)) return { stringValue: text(fields, 1) };
  if (fields.has(2)) return { boolValue: number(fields, 2) === 1n };
  if (fields.has(3)) return { intValue: BigInt.asIntN(64, number(fields, 3)!).toString() };
  if (fields.has(4)) {
    const raw = Buffer.alloc(8);
    raw.writeBigUInt64LE(number(fields, 4)!);
    return { doubleValue: raw.readDoubleLE() };
  }
  if (fields.has(5)) {
    return { arrayValue: { values: bytes(fieldsOf(bytes(fields, 5)[0]!), 1).map(anyValue) } };
  }
  return {};
}

function keyValues(buffers: Buffer[]) {
  return buffers.map((buffer) => {
    const fields = fieldsOf(buffer);
    const value = bytes(fields, 2)[0];
    return { key: text(fields, 1), value: value ? anyValue(value) : {} };
  });
}

/** The request as its JSON encoding would carry it (the fields the receiver reads). */
export function decodeTraceRequest(body: Buffer): unknown {
  return {
    resourceSpans: bytes(fieldsOf(body), 1).map((resourceSpans) => {
      const rs = fieldsOf(resourceSpans);
      const resource = bytes(rs, 1)[0];
      return {
        resource: { attributes: resource ? keyValues(bytes(fieldsOf(resource), 1)) : [] },
        scopeSpans: bytes(rs, 2).map((scopeSpans) => ({
          spans: bytes(fieldsOf(scopeSpans), 2).map((encoded) => {
            const span = fieldsOf(encoded);
            const status = bytes(span, 15)[0];
            return {
              traceId: hex(span, 1),
              spanId: hex(span, 2),
              parentSpanId: hex(span, 4),
              name: text(span, 5),
              kind: Number(number(span, 6) ?? 0n),
              attributes: keyValues(bytes(span, 9)),
              links: bytes(span, 13).map((link) => {
                const fields = fieldsOf(link);
                return { traceId: hex(fields, 1), spanId: hex(fields, 2) };
              }),
              status: { code: status ? Number(number(fieldsOf(status), 3) ?? 0n) : 0 },
            };
          }),
        })),
      };
    }),
  };
}
