// What the viewer keeps of an OTLP span, whichever encoding it arrived in.

/** An OTLP AnyValue, typed so the Jaeger view can tell int64 from float64. */
export type AttributeValue =
  | { type: 'string'; value: string }
  | { type: 'bool'; value: boolean }
  /** A string when the int64 does not fit a JS number exactly. */
  | { type: 'int'; value: number | string }
  | { type: 'double'; value: number }
  /** Base64. */
  | { type: 'bytes'; value: string }
  | { type: 'array'; value: AttributeValue[] }
  | { type: 'kvlist'; value: Attribute[] }
  | { type: 'empty' };

export interface Attribute {
  key: string;
  value: AttributeValue;
}

export type SpanKind = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
export type StatusCode = 'unset' | 'ok' | 'error';

export interface SpanEvent {
  name: string;
  timeNanos: bigint;
  attributes: Attribute[];
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Attribute[];
}

export interface Span {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: SpanKind;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Attribute[];
  events: SpanEvent[];
  links: SpanLink[];
  status: { code: StatusCode; message: string };
  /** The resource's `service.name`. */
  service: string;
  resource: Attribute[];
  scope: { name: string; version: string };
}

/** What one export request carried: the spans kept, and how many were refused (bad ids). */
export interface DecodedExport {
  spans: Span[];
  rejected: number;
}

/** The body cannot be decoded as an OTLP trace export: a 400. */
export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

/** In the order of the OTLP enums: an enum number indexes these. */
export const SPAN_KINDS: readonly SpanKind[] = [
  'unspecified',
  'internal',
  'server',
  'client',
  'producer',
  'consumer',
];
export const STATUS_CODES: readonly StatusCode[] = ['unset', 'ok', 'error'];

export function spanKindOf(value: number): SpanKind {
  return SPAN_KINDS[value] ?? 'unspecified';
}

export function statusCodeOf(value: number): StatusCode {
  return STATUS_CODES[value] ?? 'unset';
}

export function serviceNameOf(resource: Attribute[]): string {
  const found = resource.find((a) => a.key === 'service.name')?.value;
  return found?.type === 'string' && found.value !== '' ? found.value : 'unknown_service';
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** OTLP forbids all-zero ids; a span with such an id is refused, not stored. */
export function validIds(traceId: string, spanId: string): boolean {
  return (
    /^[0-9a-f]{32}$/.test(traceId) &&
    traceId !== ZERO_TRACE &&
    /^[0-9a-f]{16}$/.test(spanId) &&
    spanId !== ZERO_SPAN
  );
}

/** A trace id as Jaeger takes it: up to 32 hex digits (a 64-bit id may come without its zero half). */
export function normalizeTraceId(value: string): string | undefined {
  const id = value.trim().toLowerCase();
  return /^[0-9a-f]{1,32}$/.test(id) ? id.padStart(32, '0') : undefined;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** A JS number when exact, else the decimal digits. */
export function intValue(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}
