import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureLocalSecrets } from './local-secrets.ts';

describe('API8: the secrets of a local instance', () => {
  it('are generated once per state directory, kept private, the same on every start; the environment wins', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hireflow-secrets-'));
    const other = await mkdtemp(join(tmpdir(), 'hireflow-secrets-'));
    try {
      const first = await ensureLocalSecrets(dir, {});
      expect(first.file).toBe(join(dir, 'secrets.json'));
      for (const value of Object.values(first.values)) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(first.values.ADMIN_TOKEN).not.toBe(first.values.UNSUBSCRIBE_SIGNING_KEY);
      expect((await stat(first.file)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(first.file, 'utf8'))).toEqual(first.values);
      expect((await ensureLocalSecrets(dir, {})).values).toEqual(first.values);
      expect((await ensureLocalSecrets(other, {})).values.ADMIN_TOKEN).not.toBe(first.values.ADMIN_TOKEN);
      const given = await ensureLocalSecrets(dir, { ADMIN_TOKEN: 'the-operators-own-admin-token' });
      expect(given.values).toEqual({ ...first.values, ADMIN_TOKEN: 'the-operators-own-admin-token' });
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(other, { recursive: true, force: true });
    }
  });
});
