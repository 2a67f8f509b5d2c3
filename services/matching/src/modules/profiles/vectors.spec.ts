import { describe, expect, it } from 'vitest';
import { decodeVector, encodeVector } from './vectors.ts';

describe('stored vectors', () => {
  it('round-trip exactly as little-endian float32', () => {
    const vector = Float32Array.of(1, -0.5, 0.1, 3.4e38);
    const bytes = encodeVector(vector);
    expect(bytes.byteLength).toBe(16);
    expect(bytes.readFloatLE(4)).toBe(-0.5);
    expect(decodeVector(bytes, 4)).toEqual(vector);
  });

  it('read a vector from an unaligned slice of a larger buffer', () => {
    const bytes = Buffer.concat([Buffer.from([7]), encodeVector(Float32Array.of(0.25, 0.75))]).subarray(1);
    expect(bytes.byteOffset % 4).not.toBe(0);
    expect(decodeVector(bytes, 2)).toEqual(Float32Array.of(0.25, 0.75));
  });

  it('refuse a vector of another length', () => {
    expect(() => decodeVector(encodeVector(Float32Array.of(1, 2)), 3)).toThrow(/8 bytes, expected 12/);
  });

  it('encode a view without the rest of its buffer', () => {
    const whole = Float32Array.of(1, 2, 3, 4);
    expect(decodeVector(encodeVector(whole.subarray(1, 3)), 2)).toEqual(Float32Array.of(2, 3));
  });
});
