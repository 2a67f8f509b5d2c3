import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { recordKnownTrace } from './known-trace.fixture.ts';
import { OtlpDecodeError } from './model.ts';
import { decodeJsonTraces } from './otlp-json.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';

const request = (span: Record<string, unknown>, resource: unknown[] = []) =>
  JSON.stringify({
    resourceSpans: [
      { resource: { attributes: resource }, scopeSpans: [{ scope: { name: 's' }, spans: [span] }] },
    ],
  });

describe('decodeJsonTraces', () => {
  it('reads what the SDK JSON serializer writes (ids hex, times as decimal strings)', async () => {
    const known = await recordKnownTrace();
    const text = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(known.spans)!);
    expect(text).toContain(`"traceId":"${known.traceId}"`);
    const { spans, rejected } = decodeJsonTraces(text);
    expect(rejected).toBe(0);
    expect(spans).toHaveLength(5);
    const smtp = spans.find((s) => s.name === 'smtp send')!;
    expect(smtp).toMatchObject({
      traceId: known.traceId,
      spanId: known.ids.smtp,
      parentSpanId: known.ids.consume,
      kind: 'client',
      service: 'notifications',
      status: { code: 'error', message: 'connect ECONNREFUSED 127.0.0.1:1025' },
    });
    expect(smtp.endNanos - smtp.startNanos).toBe(15_000_000n);
  });

  it('accepts what other senders write: numbers for times, strings for int64, enum names, base64 ids', () => {
    const { spans } = decodeJsonTraces(
      request(
        {
          traceId: Buffer.from(TRACE, 'hex').toString('base64'),
          spanId: SPAN.toUpperCase(),
          parentSpanId: '',
          name: 'GET /',
          kind: 'SPAN_KIND_SERVER',
          startTimeUnixNano: 1_700_000_000_000_000_000,
          endTimeUnixNano: '1700000000001000000',
          attributes: [
            { key: 'big', value: { intValue: '9007199254740993' } },
            { key: 'n', value: { intValue: '-3' } },
            { key: 'd', value: { doubleValue: 'NaN' } },
            { key: 'none', value: {} },
          ],
          status: { code: 'STATUS_CODE_OK' },
        },
        [{ key: 'service.name', value: { stringValue: 'media' } }],
      ),
    );
    expect(spans[0]).toMatchObject({
      traceId: TRACE,
      spanId: SPAN,
      parentSpanId: undefined,
      kind: 'server',
      startNanos: 1_700_000_000_000_000_000n,
      endNanos: 1_700_000_000_001_000_000n,
      service: 'media',
      status: { code: 'ok', message: '' },
    });
    expect(spans[0]!.attributes).toEqual([
      { key: 'big', value: { type: 'int', value: '9007199254740993' } },
      { key: 'n', value: { type: 'int', value: -3 } },
      { key: 'd', value: { type: 'double', value: Number.NaN } },
      { key: 'none', value: { type: 'empty' } },
    ]);
  });

  it('names a span without service.name unknown_service, as the SDK would', () => {
    const { spans } = decodeJsonTraces(request({ traceId: TRACE, spanId: SPAN, name: 'x' }));
    expect(spans[0]!.service).toBe('unknown_service');
  });

  it('refuses a body that is not an OTLP request, naming where', () => {
    expect(() => decodeJsonTraces('{"resourceSpans": [')).toThrow(OtlpDecodeError);
    expect(() => decodeJsonTraces('[]')).toThrow('request: must be an object');
    expect(() => decodeJsonTraces('{"resourceSpans": {}}')).toThrow('resourceSpans: must be an array');
    expect(() =>
      decodeJsonTraces(request({ traceId: TRACE, spanId: SPAN, startTimeUnixNano: 'soon' })),
    ).toThrow('resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: must be an integer');
    expect(() => decodeJsonTraces(request({ traceId: TRACE, spanId: SPAN, kind: 'SERVER' }))).toThrow(
      /kind: must be an enum/,
    );
  });

  it('rejects spans with a bad id and keeps the others', () => {
    const body = JSON.parse(request({ traceId: TRACE, spanId: SPAN, name: 'ok' }));
    body.resourceSpans[0].scopeSpans[0].spans.push(
      { traceId: TRACE.slice(2), spanId: SPAN, name: 'short trace id' },
      { traceId: TRACE, name: 'no span id' },
      { traceId: '0'.repeat(32), spanId: SPAN, name: 'zero trace id' },
    );
    const decoded = decodeJsonTraces(JSON.stringify(body));
    expect(decoded.spans.map((s) => s.name)).toEqual(['ok']);
    expect(decoded.rejected).toBe(3);
  });

  it('refuses attribute values nested past 32 levels instead of recursing', () => {
    let value: unknown = { stringValue: 'deep' };
    for (let i = 0; i < 40; i++) value = { arrayValue: { values: [value] } };
    const body = request({ traceId: TRACE, spanId: SPAN, attributes: [{ key: 'k', value }] });
    expect(() => decodeJsonTraces(body)).toThrow(/nested too deeply/);
  });
});
