import { describe, expect, it } from 'vitest';
import { oneCopyConditions } from './one-copy.ts';

describe('oneCopyConditions', () => {
  it('resolves a require of the API or the conventions with the import condition', () => {
    expect(oneCopyConditions('@opentelemetry/api', ['require', 'node', 'node-addons'])).toEqual([
      'import',
      'node',
      'node-addons',
    ]);
    expect(oneCopyConditions('@opentelemetry/semantic-conventions', ['node', 'require'])).toEqual([
      'node',
      'import',
    ]);
  });

  it('leaves other packages, subpaths and imports as they are', () => {
    const require = ['require', 'node'];
    expect(oneCopyConditions('@opentelemetry/core', require)).toBe(require);
    expect(oneCopyConditions('@opentelemetry/semantic-conventions/incubating', require)).toBe(require);
    const esm = ['import', 'node'];
    expect(oneCopyConditions('@opentelemetry/api', esm)).toBe(esm);
  });
});
