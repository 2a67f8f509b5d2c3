import { ConfigError } from '@hireflow/config';
import { describe, expect, it } from 'vitest';
import { loadConfig, PUBLISHED_SIGNING_KEY } from '../src/config.ts';
import { unsubscribeTokens } from '../src/modules/suppression/token.ts';
import { useNotificationsHarness } from './harness.ts';

// No default secrets (docs/security.md, API8): the unsubscribe key of earlier
// versions was published in this repository, so anyone could seal a valid
// one-click unsubscribe token for any address with it.

const h = useNotificationsHarness('notifications-secrets', { worker: false });

const production = {
  NODE_ENV: 'production',
  ADMIN_TOKEN: 'a-production-admin-token-0123456789',
  UNSUBSCRIBE_SIGNING_KEY: 'a-production-signing-key-0123456789abcdef',
  UNSUBSCRIBE_BASE_URL: 'https://api.example.com',
  SMTP_URL: 'smtp://smtp.example.com:587',
};

const variablesRefused = (env: Record<string, string | undefined>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => issue.variable);
  }
};

describe('API8 security misconfiguration: unsubscribe secrets and links', () => {
  it('refuses a token sealed with the old published default key (POST → 400, nothing suppressed)', async () => {
    const address = `someone-${Date.now()}@example.test`;
    const token = unsubscribeTokens(PUBLISHED_SIGNING_KEY).issue(address);
    const res = await h.app.inject({ method: 'POST', url: `/v1/unsubscribe?token=${token}` });
    expect(res.statusCode).toBe(400);
    const rows = await h.deps.orm.em
      .fork()
      .execute('SELECT 1 FROM suppression WHERE address = lower(?)', [address]);
    expect(rows).toHaveLength(0);
    // A token of the service's own key still works.
    const own = unsubscribeTokens(h.config.UNSUBSCRIBE_SIGNING_KEY).issue(address);
    expect((await h.app.inject({ method: 'POST', url: `/v1/unsubscribe?token=${own}` })).statusCode).toBe(
      200,
    );
  });

  it('has no default signing key: the published one is refused everywhere, a missing one in production', () => {
    expect(variablesRefused({ UNSUBSCRIBE_SIGNING_KEY: PUBLISHED_SIGNING_KEY })).toEqual([
      'UNSUBSCRIBE_SIGNING_KEY',
    ]);
    expect(variablesRefused({ ...production, UNSUBSCRIBE_SIGNING_KEY: undefined })).toEqual([
      'UNSUBSCRIBE_SIGNING_KEY',
    ]);
    // Outside production an unset key is random, never a known value.
    const a = loadConfig({}).UNSUBSCRIBE_SIGNING_KEY;
    expect(a).not.toBe(PUBLISHED_SIGNING_KEY);
    expect(loadConfig({}).UNSUBSCRIBE_SIGNING_KEY).not.toBe(a);
    expect(variablesRefused(production)).toEqual([]);
  });

  it('refuses in production an unsubscribe base URL that is http or loopback (it goes into every email)', () => {
    for (const url of [
      undefined,
      'http://api.example.com',
      'https://127.0.0.1:3003',
      'https://localhost',
      'https://[::1]:443',
    ]) {
      expect(variablesRefused({ ...production, UNSUBSCRIBE_BASE_URL: url }), String(url)).toEqual([
        'UNSUBSCRIBE_BASE_URL',
      ]);
    }
  });
});
