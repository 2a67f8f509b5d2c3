// `pnpm image:size` (scripts/image-size.ts): the Dockerfile's production
// install, run for real into a temporary folder, carries none of the tooling
// (issue 31); and its check names what it finds.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forbiddenIn, measureImage } from '../scripts/image-size.ts';

describe('pnpm image:size', () => {
  it('names a forbidden package or tool folder in an install', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hireflow-image-check-'));
    try {
      for (const path of [
        'node_modules/.pnpm/fauxqs@2.4.1/node_modules/fauxqs',
        'node_modules/.pnpm/@hireflow+chaos@0.1.0/node_modules/@hireflow/chaos',
        'node_modules/.pnpm/fastify@5.12.8/node_modules/fastify',
        'tools/ops',
        'tools/trace-viewer',
      ])
        await mkdir(join(dir, path), { recursive: true });
      expect(await forbiddenIn(dir)).toEqual(['@hireflow/chaos', 'fauxqs', 'tools/trace-viewer']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("installs the Dockerfile's production selection with no tooling in it, and sizes it", async () => {
    const size = await measureImage();
    expect(size.forbidden).toEqual([]);
    expect(size.packages).toBeGreaterThan(50);
    expect(size.largest.map((p) => p.name).some((n) => n.startsWith('fastify@'))).toBe(true);
    expect(size.nodeModulesMb).toBeGreaterThan(size.sourcesMb);
  }, 600_000);
});
