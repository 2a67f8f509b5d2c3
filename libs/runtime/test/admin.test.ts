import { ConfigError } from '@hireflow/config';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  adminPortOf,
  createAdminServer,
  createLogger,
  parseServiceConfig,
  serviceConfigSchema,
} from '../src/index.ts';

const TOKEN = 'a-token-of-the-tests-own-0123456789';
const log = createLogger('runtime-test', 'silent');

describe('the admin listener', () => {
  let admin: FastifyInstance;
  beforeAll(async () => {
    admin = createAdminServer({ ADMIN_TOKEN: TOKEN }, { log });
    admin.get('/internal/ping', async () => ({ pong: true }));
    await admin.ready();
  });
  afterAll(() => admin.close());

  const get = (authorization?: string) =>
    admin.inject({ method: 'GET', url: '/internal/ping', headers: authorization ? { authorization } : {} });
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('with a token set, refuses a request without it: 401 problem+json with both challenges', async () => {
    const res = await get();
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toEqual([
      'Basic realm="hireflow admin"',
      'Bearer realm="hireflow admin"',
    ]);
    expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('takes the token as a Bearer token or as the Basic password (any user name)', async () => {
    expect((await get(`Bearer ${TOKEN}`)).json()).toEqual({ pong: true });
    expect((await get(basic('ops', TOKEN))).statusCode).toBe(200);
    expect((await get(basic('', TOKEN))).statusCode).toBe(200);
  });

  it('refuses a wrong token, a wrong password, a token sent as the user name, and garbage', async () => {
    for (const header of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      basic('ops', 'wrong'),
      basic(TOKEN, ''),
      'Basic !!!',
      `Token ${TOKEN}`,
    ]) {
      expect((await get(header)).statusCode, header).toBe(401);
    }
  });

  it('without a token (development), answers anyone on its loopback port', async () => {
    const open = createAdminServer({}, { log });
    open.get('/internal/ping', async () => ({ pong: true }));
    try {
      expect((await open.inject({ method: 'GET', url: '/internal/ping' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe('API8 security misconfiguration: the admin port and the Host header', () => {
  it('answers loopback names, IP addresses and ADMIN_ALLOWED_HOSTS only (no DNS rebinding), token or not', async () => {
    for (const config of [{}, { ADMIN_TOKEN: TOKEN }]) {
      const admin = createAdminServer(
        { ...config, ADMIN_ALLOWED_HOSTS: 'jobs,prometheus.internal' },
        { log },
      );
      admin.get('/internal/ping', async () => ({ pong: true }));
      const auth = config.ADMIN_TOKEN ? { authorization: `Bearer ${TOKEN}` } : {};
      try {
        for (const host of [
          'localhost:4001',
          '127.0.0.1:4001',
          '[::1]:4001',
          '10.40.3.7:4001',
          'jobs:4001',
          'Prometheus.Internal',
        ]) {
          const res = await admin.inject({
            method: 'GET',
            url: '/internal/ping',
            headers: { ...auth, host },
          });
          expect(res.statusCode, host).toBe(200);
        }
        for (const host of [
          'evil.example:4001',
          'attacker.test',
          'jobs.evil.example',
          '127.0.0.1.nip.io:4001',
        ]) {
          const res = await admin.inject({
            method: 'GET',
            url: '/internal/ping',
            headers: { ...auth, host },
          });
          expect(res.statusCode, host).toBe(403);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(res.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED', errors: [{ field: 'host' }] });
        }
      } finally {
        await admin.close();
      }
    }
  });
});

describe('admin configuration', () => {
  const schema = serviceConfigSchema('media');

  it('refuses NODE_ENV=production without ADMIN_TOKEN, naming the variable', () => {
    try {
      parseServiceConfig(schema, { NODE_ENV: 'production' });
      expect.unreachable('a production config without a token was accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues.map((i) => i.variable)).toEqual(['ADMIN_TOKEN']);
    }
    expect(parseServiceConfig(schema, { NODE_ENV: 'production', ADMIN_TOKEN: TOKEN }).ADMIN_TOKEN).toBe(
      TOKEN,
    );
  });

  it('refuses, with NODE_ENV=production, a public link variable that is not https://, naming it', () => {
    const withLink = schema.extend({ PUBLIC_LINK: z.string().default('http://127.0.0.1:3000') });
    const production = { NODE_ENV: 'production', ADMIN_TOKEN: TOKEN };
    const options = { httpsInProduction: ['PUBLIC_LINK' as const] };
    expect(() => parseServiceConfig(withLink, production, options)).toThrow(
      /PUBLIC_LINK: must be an https:\/\/ URL when NODE_ENV=production/,
    );
    const https = { ...production, PUBLIC_LINK: 'https://api.example.test' };
    expect(parseServiceConfig(withLink, https, options).PUBLIC_LINK).toBe('https://api.example.test');
    expect(parseServiceConfig(withLink, {}, options).PUBLIC_LINK).toBe('http://127.0.0.1:3000');
  });

  it('API8: refuses, with NODE_ENV=production, TRUST_PROXY=true or a hop count (a client could pick its own address); CIDRs pass', () => {
    const production = { NODE_ENV: 'production', ADMIN_TOKEN: TOKEN };
    for (const value of ['true', '1', '2']) {
      expect(() => parseServiceConfig(schema, { ...production, TRUST_PROXY: value }), value).toThrow(
        /TRUST_PROXY: must name the proxies' addresses or CIDRs when NODE_ENV=production/,
      );
    }
    for (const value of ['false', '10.0.0.0/16', '10.0.0.0/24,10.0.1.0/24']) {
      expect(parseServiceConfig(schema, { ...production, TRUST_PROXY: value }).TRUST_PROXY).toBe(value);
    }
    expect(parseServiceConfig(schema, { TRUST_PROXY: 'true' }).TRUST_PROXY).toBe('true');
  });

  it('API8: refuses the admin token docker-compose used to publish, in production or not', () => {
    for (const NODE_ENV of ['production', 'development']) {
      expect(() =>
        parseServiceConfig(schema, { NODE_ENV, ADMIN_TOKEN: 'hireflow-development-admin-token' }),
      ).toThrow(/ADMIN_TOKEN: is the published development token/);
    }
  });

  it('refuses a token too short to guard anything', () => {
    expect(() => parseServiceConfig(schema, { ADMIN_TOKEN: 'short' })).toThrow(
      /ADMIN_TOKEN: must be at least 16/,
    );
  });

  it('puts the admin port at PORT + 1000, 0 when PORT is 0, or ADMIN_PORT', () => {
    expect(adminPortOf(parseServiceConfig(schema, {}))).toBe(4004);
    expect(adminPortOf(parseServiceConfig(schema, { PORT: '0' }))).toBe(0);
    expect(adminPortOf(parseServiceConfig(schema, { PORT: '0', ADMIN_PORT: '9100' }))).toBe(9100);
    expect(parseServiceConfig(schema, {}).ADMIN_HOST).toBe('127.0.0.1');
  });
});
