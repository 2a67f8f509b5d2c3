import { ConfigError } from '@hireflow/config';
import { servicePort } from '@hireflow/contracts';
import { loadConfig as jobsConfig } from '@hireflow/jobs/config';
import { loadConfig as matchingConfig } from '@hireflow/matching/config';
import { loadConfig as mediaConfig } from '@hireflow/media/config';
import { loadConfig as notificationsConfig } from '@hireflow/notifications/config';
import { describe, expect, it } from 'vitest';

// Each service's default port is its port in libs/contracts (whose spec holds docs/design.md's numbers).
const services = {
  jobs: { load: jobsConfig, port: servicePort('jobs') },
  matching: { load: matchingConfig, port: servicePort('matching') },
  notifications: { load: notificationsConfig, port: servicePort('notifications') },
  media: { load: mediaConfig, port: servicePort('media') },
};

// One bad value per variable every service reads.
const badValues: Record<string, string[]> = {
  DATABASE_URL: ['not a url', 'mysql://root@127.0.0.1/x'],
  REDIS_URL: ['127.0.0.1:6379', 'http://127.0.0.1:6379'],
  REDIS_PREFIX: ['Has Spaces'],
  AWS_REGION: ['Europe', 'eu_west_1'],
  AWS_ENDPOINT_URL: ['localhost:4566', 'ftp://127.0.0.1'],
  HIREFLOW_TOPOLOGY_PREFIX: ['UPPER', 'a'.repeat(41)],
  OTEL_EXPORTER_OTLP_ENDPOINT: ['jaeger:4318'],
  PORT: ['http', '-1', '70000', '3.5'],
  ROLE: ['both'],
  LOG_LEVEL: ['loud'],
  SHUTDOWN_TIMEOUT_MS: ['soon', '10'],
};

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe.each(Object.entries(services))('%s config', (name, { load, port }) => {
  it('starts from documented defaults with an empty environment', () => {
    const config = load({});
    expect(config.PORT).toBe(port);
    expect(config.DATABASE_URL).toBe(`postgres://postgres@127.0.0.1:5432/hireflow_${name}`);
    expect(config.ROLE).toBe('all');
    expect(config.AWS_ENDPOINT_URL).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    expect(load({ PORT: '', ROLE: '' }).PORT).toBe(port);
  });

  it.each(
    Object.entries(badValues).flatMap(([variable, values]) => values.map((value) => [variable, value])),
  )('rejects %s=%j with a message naming it', (variable, value) => {
    const error = errorOf(() => load({ [variable]: value }));
    expect(error.issues.map((i) => i.variable)).toEqual([variable]);
    expect(error.message).toContain(`${variable}:`);
  });

  it('names every bad variable at once', () => {
    const error = errorOf(() => load({ PORT: 'x', ROLE: 'y', REDIS_URL: 'z' }));
    expect(error.issues.map((i) => i.variable).sort()).toEqual(['PORT', 'REDIS_URL', 'ROLE']);
  });
});

describe('notifications config', () => {
  it('reads SMTP_URL and rejects a non-SMTP one', () => {
    expect(notificationsConfig({ SMTP_URL: 'smtp://mail:25' }).SMTP_URL).toBe('smtp://mail:25');
    expect(errorOf(() => notificationsConfig({ SMTP_URL: 'http://mail' })).message).toContain('SMTP_URL:');
  });
});

describe('notifications shutdown budget', () => {
  it('refuses a SHUTDOWN_TIMEOUT_MS that cannot hold a send running at shutdown, naming it', () => {
    const error = errorOf(() =>
      notificationsConfig({ SMTP_TIMEOUT_MS: '20000', SHUTDOWN_TIMEOUT_MS: '25000' }),
    );
    expect(error.issues.map((i) => i.variable)).toEqual(['SHUTDOWN_TIMEOUT_MS']);
    expect(error.message).toContain('must be at least 30000');
    expect(
      notificationsConfig({ SMTP_TIMEOUT_MS: '20000', SHUTDOWN_TIMEOUT_MS: '30000' }).SHUTDOWN_TIMEOUT_MS,
    ).toBe(30_000);
  });
});
