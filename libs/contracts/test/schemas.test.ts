// The committed schemas folder: fresh, released, and passing the check.
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkContracts, generateSchemas, releaseContracts, staleSchemas } from '../src/cli/files.ts';
import {
  type CatalogEntry,
  defineEventContracts,
  eventCatalog,
  eventTypes,
  jobClosedData,
} from '../src/index.ts';

const SCHEMAS = fileURLToPath(new URL('../schemas/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OPENAPI = join(ROOT, 'docs/api/openapi.json');

describe('libs/contracts/schemas', () => {
  it('is committed and up to date (regenerate: pnpm contracts:generate)', async () => {
    expect(await staleSchemas(SCHEMAS)).toEqual([]);
    const files = await readdir(join(SCHEMAS, 'events'));
    expect(files.sort()).toEqual(eventTypes.map((t) => `${t}.json`).sort());
  });

  it('passes `pnpm contracts:check` as committed (exit 0)', () => {
    const run = spawnSync(
      process.execPath,
      ['libs/contracts/src/cli/main.ts', 'check', '--openapi', OPENAPI],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(run.stdout).toMatch(/contracts: 0 breaking/);
    expect(run.status).toBe(0);
  });

  it('refuses to release a break, and releases a compatible change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'contracts-'));
    try {
      await cp(SCHEMAS, dir, { recursive: true });
      const catalog: Record<string, CatalogEntry> = { ...eventCatalog };
      catalog['job.closed.v1'] = {
        ...eventCatalog['job.closed.v1'],
        data: jobClosedData.omit({ closedAt: true }),
      };
      const broken = { schemasDir: dir, openapiFile: OPENAPI, events: defineEventContracts(catalog) };
      await generateSchemas(dir, broken.events);
      const refused = await releaseContracts(broken);
      expect(refused.ok).toBe(false);
      expect(refused.findings.filter((f) => f.breaking).map((f) => f.kind)).toEqual(['field-removed']);
      expect((await checkContracts(broken)).ok).toBe(false);

      catalog['job.closed.v1'] = {
        ...eventCatalog['job.closed.v1'],
        data: jobClosedData.extend({ reason: z.string().optional() }),
      };
      const additive = { ...broken, events: defineEventContracts(catalog) };
      expect((await checkContracts(additive)).stale).toContain('events/job.closed.v1.json');
      await generateSchemas(dir, additive.events);
      expect((await releaseContracts(additive)).ok).toBe(true);
      expect(await checkContracts(additive)).toMatchObject({ ok: true, findings: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
