import { describe, expect, it } from 'vitest';
import { originalKey, uploadPrefix, variantKey } from './keys.ts';

const ref = {
  tenantId: '3f0c9a52-0d7e-4b8e-9a51-1c2d3e4f5a6b',
  uploadId: '9b1d2c3e-4f5a-4b6c-8d7e-0f1a2b3c4d5e',
};

describe('object keys', () => {
  it('puts every object of an upload under its tenant and upload', () => {
    expect(uploadPrefix(ref)).toBe(`uploads/${ref.tenantId}/${ref.uploadId}/`);
    expect(originalKey(ref)).toBe(`uploads/${ref.tenantId}/${ref.uploadId}/original`);
    expect(variantKey(ref, 'thumb')).toBe(`uploads/${ref.tenantId}/${ref.uploadId}/thumb.webp`);
    expect(variantKey(ref, 'medium')).toBe(`uploads/${ref.tenantId}/${ref.uploadId}/medium.webp`);
  });

  it.each([
    ['a path', { ...ref, uploadId: '../other/x' }],
    ['a slash', { ...ref, tenantId: 'a/b' }],
    ['an empty id', { ...ref, uploadId: '' }],
    ['a dot segment', { ...ref, tenantId: '..' }],
  ])('refuses an id with %s', (_label, bad) => {
    expect(() => originalKey(bad)).toThrow(RangeError);
  });

  it('refuses a variant name that is not a plain segment', () => {
    expect(() => variantKey(ref, '../original' as never)).toThrow(RangeError);
  });
});
