import { describe, expect, it } from 'vitest';
import { camelCase, handlerName } from './names.ts';

describe('names', () => {
  it('a handler per type, a camel-cased service object', () => {
    expect(handlerName('job.posted.v1')).toBe('onJobPostedV1');
    expect(handlerName('apikey.revoked.v1')).toBe('onApikeyRevokedV1');
    expect(camelCase('search-indexer')).toBe('searchIndexer');
    expect(camelCase('analytics')).toBe('analytics');
  });
});
