import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness } from './harness.ts';

// The committed OpenAPI document (services/jobs/openapi.json) is generated from
// the route schemas. Regenerate: UPDATE_OPENAPI=1 pnpm vitest run services/jobs/test/openapi.test.ts
const file = resolve(import.meta.dirname, '../openapi.json');
let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-openapi');
});
afterAll(async () => {
  await h?.close();
});

describe('OpenAPI 3.1', () => {
  it('is served at /openapi.json and /docs', async () => {
    const doc = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    const paths = Object.keys(doc.json().paths);
    for (const path of [
      '/v1/jobs',
      '/v1/jobs/{id}',
      '/v1/jobs/{id}/matches',
      '/v1/jobs/{id}/close',
      '/v1/jobs/{id}/events',
      '/v1/candidates',
      '/v1/candidates/{id}',
      '/v1/candidates/{id}/matches',
    ]) {
      expect(paths).toContain(path);
    }
    const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });

  it('is committed and up to date', async () => {
    const generated = `${JSON.stringify(h.app.swagger(), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI === '1') await writeFile(file, generated);
    const committed = await readFile(file, 'utf8').catch(() => '');
    expect(committed, 'services/jobs/openapi.json is stale: regenerate it (see the comment above)').toBe(
      generated,
    );
  });
});
