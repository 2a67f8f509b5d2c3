// Decodes an OTLP/JSON ExportTraceServiceRequest. OTLP/JSON is the proto3
// JSON mapping with two OTLP rules: ids are hex strings (not base64) and
// enums are integers. Senders vary in the details, so this also accepts
// 64-bit numbers as strings or numbers, enum names, and base64 ids.
import {
  type Attribute,
  type AttributeValue,
  type DecodedExport,
  intValue,
  OtlpDecodeError,
  SPAN_KINDS,
  type Span,
  type SpanEvent,
  type SpanLink,
  STATUS_CODES,
  serviceNameOf,
  validIds,
} from './model.ts';

const MAX_VALUE_DEPTH = 32;

type Json = Record<string, unknown>;

export function decodeJsonTraces(text: string): DecodedExport {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`invalid JSON: ${(error as Error).message}`);
  }
  const request = object(body, 'request');
  const decoded: DecodedExport = { spans: [], rejected: 0 };
  list(request.resourceSpans, 'resourceSpans').forEach((rs, i) => {
    const resourceSpans = object(rs, `resourceSpans[${i}]`);
    const resourceJson = optionalObject(resourceSpans.resource, `resourceSpans[${i}].resource`);
    const resource = attributes(resourceJson?.attributes, `resourceSpans[${i}].resource.attributes`);
    const service = serviceNameOf(resource);
    list(resourceSpans.scopeSpans, `resourceSpans[${i}].scopeSpans`).forEach((ss, j) => {
      const path = `resourceSpans[${i}].scopeSpans[${j}]`;
      const scopeSpans = object(ss, path);
      const scopeJson = optionalObject(scopeSpans.scope, `${path}.scope`);
      const scope = {
        name: string(scopeJson?.name, `${path}.scope.name`),
        version: string(scopeJson?.version, `${path}.scope.version`),
      };
      list(scopeSpans.spans, `${path}.spans`).forEach((s, k) => {
        const span = readSpan(object(s, `${path}.spans[${k}]`), `${path}.spans[${k}]`);
        if (validIds(span.traceId, span.spanId)) decoded.spans.push({ ...span, service, resource, scope });
        else decoded.rejected++;
      });
    });
  });
  return decoded;
}

function readSpan(json: Json, path: string): Omit<Span, 'service' | 'resource' | 'scope'> {
  const status = optionalObject(json.status, `${path}.status`);
  const parent = id(json.parentSpanId, 8, `${path}.parentSpanId`);
  return {
    traceId: id(json.traceId, 16, `${path}.traceId`),
    spanId: id(json.spanId, 8, `${path}.spanId`),
    parentSpanId: parent === '' || /^0+$/.test(parent) ? undefined : parent,
    name: string(json.name, `${path}.name`),
    kind: enumValue(json.kind, 'SPAN_KIND_', SPAN_KINDS, `${path}.kind`),
    startNanos: uint64(json.startTimeUnixNano, `${path}.startTimeUnixNano`),
    endNanos: uint64(json.endTimeUnixNano, `${path}.endTimeUnixNano`),
    attributes: attributes(json.attributes, `${path}.attributes`),
    events: list(json.events, `${path}.events`).map((e, i): SpanEvent => {
      const event = object(e, `${path}.events[${i}]`);
      return {
        name: string(event.name, `${path}.events[${i}].name`),
        timeNanos: uint64(event.timeUnixNano, `${path}.events[${i}].timeUnixNano`),
        attributes: attributes(event.attributes, `${path}.events[${i}].attributes`),
      };
    }),
    links: list(json.links, `${path}.links`).map((l, i): SpanLink => {
      const link = object(l, `${path}.links[${i}]`);
      return {
        traceId: id(link.traceId, 16, `${path}.links[${i}].traceId`),
        spanId: id(link.spanId, 8, `${path}.links[${i}].spanId`),
        attributes: attributes(link.attributes, `${path}.links[${i}].attributes`),
      };
    }),
    status: {
      code: enumValue(status?.code, 'STATUS_CODE_', STATUS_CODES, `${path}.status.code`),
      message: string(status?.message, `${path}.status.message`),
    },
  };
}

function attributes(value: unknown, path: string): Attribute[] {
  return list(value, path).map((kv, i) => keyValue(kv, `${path}[${i}]`, 0));
}

function keyValue(value: unknown, path: string, depth: number): Attribute {
  const kv = object(value, path);
  return { key: string(kv.key, `${path}.key`), value: anyValue(kv.value, `${path}.value`, depth) };
}

function anyValue(value: unknown, path: string, depth: number): AttributeValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpDecodeError(`${path}: attribute values nested too deeply`);
  const json = optionalObject(value, path);
  if (!json) return { type: 'empty' };
  if (json.stringValue !== undefined) return { type: 'string', value: string(json.stringValue, path) };
  if (json.boolValue !== undefined) {
    if (typeof json.boolValue !== 'boolean')
      throw new OtlpDecodeError(`${path}.boolValue: must be a boolean`);
    return { type: 'bool', value: json.boolValue };
  }
  if (json.intValue !== undefined) return { type: 'int', value: intValue(int64(json.intValue, path)) };
  if (json.doubleValue !== undefined) return { type: 'double', value: double(json.doubleValue, path) };
  if (json.bytesValue !== undefined) return { type: 'bytes', value: string(json.bytesValue, path) };
  if (json.arrayValue !== undefined) {
    const values = list(object(json.arrayValue, `${path}.arrayValue`).values, `${path}.arrayValue.values`);
    return {
      type: 'array',
      value: values.map((v, i) => anyValue(v, `${path}.arrayValue.values[${i}]`, depth + 1)),
    };
  }
  if (json.kvlistValue !== undefined) {
    const values = list(object(json.kvlistValue, `${path}.kvlistValue`).values, `${path}.kvlistValue.values`);
    return {
      type: 'kvlist',
      value: values.map((kv, i) => keyValue(kv, `${path}.kvlistValue.values[${i}]`, depth + 1)),
    };
  }
  return { type: 'empty' };
}

/** Hex as OTLP/JSON says; base64 of the right length as some senders do; '' when absent. */
function id(value: unknown, bytes: number, path: string): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') throw new OtlpDecodeError(`${path}: must be a hex string`);
  if (value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) return value.toLowerCase();
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (decoded?.length === bytes) return decoded.toString('hex');
  // A wrong length is a bad id, not a bad body: the span is refused, the rest kept.
  return value.toLowerCase();
}

function uint64(value: unknown, path: string): bigint {
  const parsed = int64(value ?? 0, path);
  if (parsed < 0n) throw new OtlpDecodeError(`${path}: must not be negative`);
  return parsed;
}

function int64(value: unknown, path: string): bigint {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return BigInt(value);
  throw new OtlpDecodeError(`${path}: must be an integer (number or decimal string)`);
}

function double(value: unknown, path: string): number {
  if (typeof value === 'number') return value;
  if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  throw new OtlpDecodeError(`${path}: must be a number`);
}

/** An enum number (unknown numbers read as 0, as proto3 does), or its name as the proto spells it. */
function enumValue<T extends string>(value: unknown, prefix: string, names: readonly T[], path: string): T {
  if (value === undefined || value === null) return names[0]!;
  if (typeof value === 'number' && Number.isInteger(value)) return names[value] ?? names[0]!;
  const named = typeof value === 'string' && names.find((n) => `${prefix}${n.toUpperCase()}` === value);
  if (named) return named;
  throw new OtlpDecodeError(`${path}: must be an enum number`);
}

function string(value: unknown, path: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new OtlpDecodeError(`${path}: must be a string`);
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${path}: must be an array`);
  return value;
}

function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OtlpDecodeError(`${path}: must be an object`);
  }
  return value as Json;
}

function optionalObject(value: unknown, path: string): Json | undefined {
  return value === undefined || value === null ? undefined : object(value, path);
}
