// Vectors in Postgres: float32, little-endian, in a bytea (1,536 bytes for
// 384 dims; a float8[] would take twice that and parse far slower).
import { endianness } from 'node:os';

// Copying the bytes as they are in memory is little-endian only on such a host.
const LITTLE_ENDIAN = endianness() === 'LE';

export function encodeVector(vector: Float32Array): Buffer {
  if (!LITTLE_ENDIAN) {
    const out = Buffer.alloc(vector.length * 4);
    for (const [i, value] of vector.entries()) out.writeFloatLE(value, i * 4);
    return out;
  }
  return Buffer.from(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
}

/** A stored vector back, checked against the expected length. */
export function decodeVector(bytes: Uint8Array, dims: number): Float32Array {
  if (bytes.byteLength !== dims * 4) {
    throw new RangeError(
      `a stored vector has ${bytes.byteLength} bytes, expected ${dims * 4} (${dims} dims)`,
    );
  }
  if (!LITTLE_ENDIAN) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return Float32Array.from({ length: dims }, (_, i) => view.getFloat32(i * 4, true));
  }
  // A copy: the driver's buffer may be a slice of a larger, unaligned one.
  const out = new Float32Array(dims);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}
