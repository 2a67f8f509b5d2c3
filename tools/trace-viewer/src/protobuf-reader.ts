import { OtlpDecodeError } from './model.ts';

export const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the protobuf wire format, enough for the OTLP messages: varints,
 * fixed 32/64-bit values and length-delimited fields. Every read checks its
 * bounds, so a truncated or garbled body ends in an OtlpDecodeError.
 */
export class ProtobufReader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #pos: number;
  readonly #end: number;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#pos = 0;
    this.#end = bytes.byteLength;
  }

  atEnd(): boolean {
    return this.#pos >= this.#end;
  }

  tag(): { field: number; wireType: number } {
    const key = this.uint();
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (field === 0) throw new OtlpDecodeError(`invalid protobuf: field number 0 at byte ${this.#pos}`);
    return { field, wireType };
  }

  /** A varint as an unsigned 64-bit bigint. */
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = this.#byte();
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, result);
    }
    throw new OtlpDecodeError('invalid protobuf: varint longer than 10 bytes');
  }

  /** A varint that must fit a JS number (tags, lengths, counts, enums). */
  uint(): number {
    const value = this.varint();
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new OtlpDecodeError('invalid protobuf: varint too large');
    return Number(value);
  }

  int64(): bigint {
    return BigInt.asIntN(64, this.varint());
  }

  fixed64(): bigint {
    this.#need(8);
    const value = this.#view.getBigUint64(this.#pos, true);
    this.#pos += 8;
    return value;
  }

  double(): number {
    this.#need(8);
    const value = this.#view.getFloat64(this.#pos, true);
    this.#pos += 8;
    return value;
  }

  bytes(): Uint8Array {
    const length = this.uint();
    this.#need(length);
    const slice = this.#bytes.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return slice;
  }

  string(): string {
    try {
      return utf8.decode(this.bytes());
    } catch (error) {
      if (error instanceof OtlpDecodeError) throw error;
      throw new OtlpDecodeError('invalid protobuf: a string is not valid UTF-8');
    }
  }

  skip(wireType: number): void {
    if (wireType === WIRE.varint) this.varint();
    else if (wireType === WIRE.fixed64) this.#advance(8);
    else if (wireType === WIRE.bytes) this.bytes();
    else if (wireType === WIRE.fixed32) this.#advance(4);
    else throw new OtlpDecodeError(`invalid protobuf: unsupported wire type ${wireType}`);
  }

  #byte(): number {
    this.#need(1);
    return this.#bytes[this.#pos++]!;
  }

  #advance(count: number): void {
    this.#need(count);
    this.#pos += count;
  }

  #need(count: number): void {
    if (this.#pos + count > this.#end) throw new OtlpDecodeError('invalid protobuf: message truncated');
  }
}

/**
 * Walks a message's fields. `read` consumes a known field and returns true;
 * for a field it does not know it returns false and the field is skipped, as
 * protobuf requires of readers meeting newer senders.
 */
export function readMessage(
  bytes: Uint8Array,
  read: (reader: ProtobufReader, field: number, wireType: number) => boolean,
): void {
  const reader = new ProtobufReader(bytes);
  while (!reader.atEnd()) {
    const { field, wireType } = reader.tag();
    if (!read(reader, field, wireType)) reader.skip(wireType);
  }
}

/** A known field with an unexpected wire type is a malformed message, not a newer one. */
export function expectWire(field: number, wireType: number, expected: number, message: string): void {
  if (wireType !== expected) {
    throw new OtlpDecodeError(`invalid protobuf: ${message} field ${field} has wire type ${wireType}`);
  }
}
