import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { beforeAll, describe, expect, it } from 'vitest';
import { at, type KnownTrace, LINKED, MS, recordKnownTrace, T0 } from './known-trace.fixture.ts';
import { OtlpDecodeError, type Span } from './model.ts';
import { decodeJsonTraces } from './otlp-json.ts';
import { decodeProtobufTraces } from './otlp-protobuf.ts';

let known: KnownTrace;
beforeAll(async () => {
  known = await recordKnownTrace();
});

const nanos = (offset: number) => BigInt(T0) * 1_000_000_000n + BigInt(offset);
const byName = (spans: Span[], name: string) => spans.find((s) => s.name === name)!;

describe('decodeProtobufTraces, on what the SDK serializer writes', () => {
  it('reads every span with ids, parent, kind, exact times, service, resource and scope', () => {
    const { spans, rejected } = decodeProtobufTraces(ProtobufTraceSerializer.serializeRequest(known.spans)!);
    expect(rejected).toBe(0);
    expect(spans.map((s) => s.name).sort()).toEqual([
      'INSERT hireflow_jobs.job',
      'POST /v1/jobs',
      'job-events process',
      'score <candidates>',
      'smtp send',
    ]);
    const root = byName(spans, 'POST /v1/jobs');
    expect(root).toMatchObject({
      traceId: known.traceId,
      spanId: known.ids.root,
      parentSpanId: undefined,
      kind: 'server',
      startNanos: nanos(0),
      endNanos: nanos(40 * MS),
      service: 'jobs',
      scope: { name: 'hireflow-test', version: '0.1.0' },
      status: { code: 'unset', message: '' },
    });
    expect(root.resource).toEqual([
      { key: 'service.name', value: { type: 'string', value: 'jobs' } },
      { key: 'service.version', value: { type: 'string', value: '1.0.0' } },
    ]);
    expect(byName(spans, 'INSERT hireflow_jobs.job')).toMatchObject({
      parentSpanId: known.ids.root,
      kind: 'client',
      startNanos: nanos(2 * MS),
      endNanos: nanos(5.5 * MS),
    });
    expect(byName(spans, 'score <candidates>')).toMatchObject({ kind: 'internal', service: 'matching' });
  });

  it('keeps attribute types: string, int (negative too), double, bool, array', () => {
    const { spans } = decodeProtobufTraces(ProtobufTraceSerializer.serializeRequest(known.spans)!);
    expect(byName(spans, 'POST /v1/jobs').attributes).toEqual([
      { key: 'http.request.method', value: { type: 'string', value: 'POST' } },
      { key: 'http.response.status_code', value: { type: 'int', value: 202 } },
      { key: 'hireflow.ratio', value: { type: 'double', value: 0.25 } },
      { key: 'hireflow.cached', value: { type: 'bool', value: false } },
      { key: 'hireflow.offset', value: { type: 'int', value: -5 } },
      {
        key: 'hireflow.skills',
        value: {
          type: 'array',
          value: [
            { type: 'string', value: 'node' },
            { type: 'string', value: 'postgres' },
          ],
        },
      },
    ]);
  });

  it('reads links, status and the exception event', () => {
    const { spans } = decodeProtobufTraces(ProtobufTraceSerializer.serializeRequest(known.spans)!);
    expect(byName(spans, 'job-events process').links).toEqual([
      { ...LINKED, attributes: [{ key: 'messaging.batch', value: { type: 'bool', value: true } }] },
    ]);
    const smtp = byName(spans, 'smtp send');
    expect(smtp.status).toEqual({ code: 'error', message: 'connect ECONNREFUSED 127.0.0.1:1025' });
    expect(smtp.events).toHaveLength(1);
    expect(smtp.events[0]).toMatchObject({ name: 'exception', timeNanos: nanos(84 * MS) });
    expect(smtp.events[0]!.attributes.map((a) => a.key)).toEqual([
      'exception.type',
      'exception.message',
      'exception.stacktrace',
    ]);
  });

  it('reads bytes and maps, and agrees field for field with the JSON decoder', () => {
    const [first, ...rest] = known.spans;
    // The API's types allow neither, but OTLP does and the serializers write both.
    const extended = Object.assign(Object.create(Object.getPrototypeOf(first)), first, {
      attributes: { ...first!.attributes, blob: new Uint8Array([1, 2, 255]), map: { a: 1, b: ['x'] } },
    });
    const spans = [extended, ...rest];
    const fromProtobuf = decodeProtobufTraces(ProtobufTraceSerializer.serializeRequest(spans)!);
    const fromJson = decodeJsonTraces(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!));
    expect(fromProtobuf).toEqual(fromJson);
    const attributes = fromProtobuf.spans.find((s) => s.spanId === first!.spanContext().spanId)!.attributes;
    expect(attributes.find((a) => a.key === 'blob')?.value).toEqual({ type: 'bytes', value: 'AQL/' });
    expect(attributes.find((a) => a.key === 'map')?.value).toEqual({
      type: 'kvlist',
      value: [
        { key: 'a', value: { type: 'int', value: 1 } },
        { key: 'b', value: { type: 'array', value: [{ type: 'string', value: 'x' }] } },
      ],
    });
  });

  it('takes an empty request as no spans', () => {
    expect(decodeProtobufTraces(new Uint8Array())).toEqual({ spans: [], rejected: 0 });
  });

  it('skips fields it does not know', () => {
    const body = ProtobufTraceSerializer.serializeRequest(known.spans)!;
    // Field 99, wire type 2 (length-delimited), 3 bytes: a newer sender's addition.
    const withUnknown = new Uint8Array([...body, 0x9a, 0x06, 3, 1, 2, 3]);
    expect(decodeProtobufTraces(withUnknown).spans).toHaveLength(5);
  });

  it('refuses garbage and truncated bodies with an OtlpDecodeError', () => {
    expect(() => decodeProtobufTraces(new TextEncoder().encode('not a protobuf'))).toThrow(OtlpDecodeError);
    const body = ProtobufTraceSerializer.serializeRequest(known.spans)!;
    expect(() => decodeProtobufTraces(body.subarray(0, body.length - 7))).toThrow(/truncated/);
    expect(() =>
      decodeProtobufTraces(
        new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
      ),
    ).toThrow(OtlpDecodeError);
  });

  it('counts spans with missing ids as rejected and keeps the rest', () => {
    // A span whose span id is all zeros, beside the known ones.
    const [first, ...rest] = known.spans;
    const broken = Object.assign(Object.create(Object.getPrototypeOf(first)), first, {
      spanContext: () => ({ ...first!.spanContext(), spanId: '0000000000000000' }),
    });
    const decoded = decodeProtobufTraces(ProtobufTraceSerializer.serializeRequest([broken, ...rest])!);
    expect(decoded.rejected).toBe(1);
    expect(decoded.spans).toHaveLength(4);
  });
});

it('the fixture offsets are nanoseconds after T0', () => {
  expect(at(1.5 * 1e9 + 7)).toEqual([T0 + 1, 500_000_007]);
});
