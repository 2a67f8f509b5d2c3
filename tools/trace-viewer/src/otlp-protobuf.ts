// Decodes an OTLP ExportTraceServiceRequest (opentelemetry/proto/collector/
// trace/v1/trace_service.proto and trace/v1/trace.proto) from protobuf bytes.
// Field numbers are the proto's; unknown fields are skipped.
import {
  type Attribute,
  type AttributeValue,
  type DecodedExport,
  intValue,
  OtlpDecodeError,
  type Span,
  type SpanEvent,
  type SpanLink,
  serviceNameOf,
  spanKindOf,
  statusCodeOf,
  toHex,
  validIds,
} from './model.ts';
import { expectWire, readMessage, WIRE } from './protobuf-reader.ts';

/** Deeper nesting of arrays and maps in an attribute is refused rather than recursed into. */
const MAX_VALUE_DEPTH = 32;

export function decodeProtobufTraces(body: Uint8Array): DecodedExport {
  const decoded: DecodedExport = { spans: [], rejected: 0 };
  readMessage(body, (reader, field, wire) => {
    if (field !== 1) return false;
    expectWire(field, wire, WIRE.bytes, 'ExportTraceServiceRequest');
    readResourceSpans(reader.bytes(), decoded);
    return true;
  });
  return decoded;
}

type RawSpan = Omit<Span, 'service' | 'resource' | 'scope'>;

function readResourceSpans(bytes: Uint8Array, out: DecodedExport): void {
  let resource: Attribute[] = [];
  const scoped: { scope: Span['scope']; spans: RawSpan[] }[] = [];
  readMessage(bytes, (reader, field, wire) => {
    if (field === 1) {
      expectWire(field, wire, WIRE.bytes, 'ResourceSpans');
      resource = readAttributesOf(reader.bytes(), 1, 'Resource');
    } else if (field === 2) {
      expectWire(field, wire, WIRE.bytes, 'ResourceSpans');
      scoped.push(readScopeSpans(reader.bytes()));
    } else return false;
    return true;
  });
  // The resource may follow its spans on the wire: name the service once all is read.
  const service = serviceNameOf(resource);
  for (const { scope, spans } of scoped) {
    for (const span of spans) {
      if (validIds(span.traceId, span.spanId)) out.spans.push({ ...span, service, resource, scope });
      else out.rejected++;
    }
  }
}

function readScopeSpans(bytes: Uint8Array): { scope: Span['scope']; spans: RawSpan[] } {
  const scope = { name: '', version: '' };
  const spans: RawSpan[] = [];
  readMessage(bytes, (reader, field, wire) => {
    if (field === 1) {
      expectWire(field, wire, WIRE.bytes, 'ScopeSpans');
      readMessage(reader.bytes(), (scopeReader, scopeField, scopeWire) => {
        if (scopeField !== 1 && scopeField !== 2) return false;
        expectWire(scopeField, scopeWire, WIRE.bytes, 'InstrumentationScope');
        scope[scopeField === 1 ? 'name' : 'version'] = scopeReader.string();
        return true;
      });
    } else if (field === 2) {
      expectWire(field, wire, WIRE.bytes, 'ScopeSpans');
      spans.push(readSpan(reader.bytes()));
    } else return false;
    return true;
  });
  return { scope, spans };
}

function readSpan(bytes: Uint8Array): RawSpan {
  const span: RawSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: undefined,
    name: '',
    kind: 'unspecified',
    startNanos: 0n,
    endNanos: 0n,
    attributes: [],
    events: [],
    links: [],
    status: { code: 'unset', message: '' },
  };
  readMessage(bytes, (reader, field, wire) => {
    switch (field) {
      case 1:
      case 2:
      case 4: {
        expectWire(field, wire, WIRE.bytes, 'Span');
        const id = toHex(reader.bytes());
        if (field === 1) span.traceId = id;
        else if (field === 2) span.spanId = id;
        else span.parentSpanId = id === '' || /^0+$/.test(id) ? undefined : id;
        return true;
      }
      case 5:
        expectWire(field, wire, WIRE.bytes, 'Span');
        span.name = reader.string();
        return true;
      case 6:
        expectWire(field, wire, WIRE.varint, 'Span');
        span.kind = spanKindOf(reader.uint());
        return true;
      case 7:
      case 8:
        expectWire(field, wire, WIRE.fixed64, 'Span');
        span[field === 7 ? 'startNanos' : 'endNanos'] = reader.fixed64();
        return true;
      case 9:
        expectWire(field, wire, WIRE.bytes, 'Span');
        span.attributes.push(readKeyValue(reader.bytes(), 0));
        return true;
      case 11:
        expectWire(field, wire, WIRE.bytes, 'Span');
        span.events.push(readEvent(reader.bytes()));
        return true;
      case 13:
        expectWire(field, wire, WIRE.bytes, 'Span');
        span.links.push(readLink(reader.bytes()));
        return true;
      case 15:
        expectWire(field, wire, WIRE.bytes, 'Span');
        span.status = readStatus(reader.bytes());
        return true;
      default:
        return false;
    }
  });
  return span;
}

function readEvent(bytes: Uint8Array): SpanEvent {
  const event: SpanEvent = { name: '', timeNanos: 0n, attributes: [] };
  readMessage(bytes, (reader, field, wire) => {
    if (field === 1) {
      expectWire(field, wire, WIRE.fixed64, 'Span.Event');
      event.timeNanos = reader.fixed64();
    } else if (field === 2) {
      expectWire(field, wire, WIRE.bytes, 'Span.Event');
      event.name = reader.string();
    } else if (field === 3) {
      expectWire(field, wire, WIRE.bytes, 'Span.Event');
      event.attributes.push(readKeyValue(reader.bytes(), 0));
    } else return false;
    return true;
  });
  return event;
}

function readLink(bytes: Uint8Array): SpanLink {
  const link: SpanLink = { traceId: '', spanId: '', attributes: [] };
  readMessage(bytes, (reader, field, wire) => {
    if (field === 1 || field === 2) {
      expectWire(field, wire, WIRE.bytes, 'Span.Link');
      link[field === 1 ? 'traceId' : 'spanId'] = toHex(reader.bytes());
    } else if (field === 4) {
      expectWire(field, wire, WIRE.bytes, 'Span.Link');
      link.attributes.push(readKeyValue(reader.bytes(), 0));
    } else return false;
    return true;
  });
  return link;
}

function readStatus(bytes: Uint8Array): Span['status'] {
  const status: Span['status'] = { code: 'unset', message: '' };
  readMessage(bytes, (reader, field, wire) => {
    if (field === 2) {
      expectWire(field, wire, WIRE.bytes, 'Status');
      status.message = reader.string();
    } else if (field === 3) {
      expectWire(field, wire, WIRE.varint, 'Status');
      status.code = statusCodeOf(reader.uint());
    } else return false;
    return true;
  });
  return status;
}

/** The repeated KeyValue field `field` of a message (Resource: 1). */
function readAttributesOf(bytes: Uint8Array, field: number, message: string): Attribute[] {
  const attributes: Attribute[] = [];
  readMessage(bytes, (reader, f, wire) => {
    if (f !== field) return false;
    expectWire(f, wire, WIRE.bytes, message);
    attributes.push(readKeyValue(reader.bytes(), 0));
    return true;
  });
  return attributes;
}

function readKeyValue(bytes: Uint8Array, depth: number): Attribute {
  const attribute: Attribute = { key: '', value: { type: 'empty' } };
  readMessage(bytes, (reader, field, wire) => {
    if (field === 1) {
      expectWire(field, wire, WIRE.bytes, 'KeyValue');
      attribute.key = reader.string();
    } else if (field === 2) {
      expectWire(field, wire, WIRE.bytes, 'KeyValue');
      attribute.value = readAnyValue(reader.bytes(), depth);
    } else return false;
    return true;
  });
  return attribute;
}

function readAnyValue(bytes: Uint8Array, depth: number): AttributeValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpDecodeError('attribute values nested too deeply');
  let value: AttributeValue = { type: 'empty' };
  readMessage(bytes, (reader, field, wire) => {
    switch (field) {
      case 1:
        expectWire(field, wire, WIRE.bytes, 'AnyValue');
        value = { type: 'string', value: reader.string() };
        return true;
      case 2:
        expectWire(field, wire, WIRE.varint, 'AnyValue');
        value = { type: 'bool', value: reader.varint() !== 0n };
        return true;
      case 3:
        expectWire(field, wire, WIRE.varint, 'AnyValue');
        value = { type: 'int', value: intValue(reader.int64()) };
        return true;
      case 4:
        expectWire(field, wire, WIRE.fixed64, 'AnyValue');
        value = { type: 'double', value: reader.double() };
        return true;
      case 5:
      case 6: {
        expectWire(field, wire, WIRE.bytes, 'AnyValue');
        const items: (AttributeValue | Attribute)[] = [];
        readMessage(reader.bytes(), (inner, innerField, innerWire) => {
          if (innerField !== 1) return false;
          expectWire(innerField, innerWire, WIRE.bytes, field === 5 ? 'ArrayValue' : 'KeyValueList');
          items.push(
            field === 5 ? readAnyValue(inner.bytes(), depth + 1) : readKeyValue(inner.bytes(), depth + 1),
          );
          return true;
        });
        value =
          field === 5
            ? { type: 'array', value: items as AttributeValue[] }
            : { type: 'kvlist', value: items as Attribute[] };
        return true;
      }
      case 7:
        expectWire(field, wire, WIRE.bytes, 'AnyValue');
        value = { type: 'bytes', value: Buffer.from(reader.bytes()).toString('base64') };
        return true;
      default:
        return false;
    }
  });
  return value;
}
