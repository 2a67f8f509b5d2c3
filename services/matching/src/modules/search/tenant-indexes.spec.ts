import { describe, expect, it } from 'vitest';
import { TenantIndexes } from './tenant-indexes.ts';

describe('TenantIndexes', () => {
  const vector = Float32Array.of(1, 0, 0, 0);
  const query = { vector, skills: ['go'] };

  it('never lets one tenant’s search see another tenant’s entries', () => {
    const indexes = new TenantIndexes({ kind: 'candidates', dims: 4, modelId: 'm' });
    indexes.upsert('tenant-a', { id: 'c1', vector, skills: ['go'] });
    indexes.upsert('tenant-a', { id: 'c2', vector, skills: ['go'] });
    expect(indexes.search('tenant-a', query).map((h) => h.id)).toEqual(['c1', 'c2']);
    expect(indexes.search('tenant-b', query)).toEqual([]);
    // the same id in two tenants is two entries
    indexes.upsert('tenant-b', { id: 'c1', vector, skills: [] });
    expect(indexes.remove('tenant-b', 'c1')).toBe(true);
    expect(indexes.has('tenant-a', 'c1')).toBe(true);
    expect(indexes.size('tenant-a')).toBe(2);
    expect(indexes.size('tenant-b')).toBe(0);
    expect(indexes.remove('tenant-c', 'c1')).toBe(false);
  });

  it('drops a tenant and refuses a missing tenant id', () => {
    const indexes = new TenantIndexes({ kind: 'postings', dims: 4, modelId: 'm' });
    indexes.upsert('t', { id: 'p', vector, skills: [] });
    expect(indexes.tenants()).toEqual(['t']);
    expect(indexes.drop('t')).toBe(true);
    expect(indexes.search('t', query)).toEqual([]);
    expect(() => indexes.search('', query)).toThrow(/tenantId/);
    expect(() => indexes.upsert(undefined as unknown as string, { id: 'p', vector, skills: [] })).toThrow(
      /tenantId/,
    );
  });
});
