// Docker cannot run here, so these tests hold the compose file to the
// contract in docs/design.md ("Running it") and to the repo: services, ports,
// environment, dependencies (the image recipe: image.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { adminPortFor, SERVICE_NAMES, servicePort } from '@hireflow/contracts';
import { createMetrics } from '@hireflow/runtime';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The services and their ports: libs/contracts, the one definition. */
const APP_SERVICES = SERVICE_NAMES;

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, unknown>;
  ports?: (string | { target: number; published?: string | number })[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}

const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;

function service(name: string): ComposeService {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** Container port -> published host port, from short ("[ip:]host:container") or long syntax. */
function publishedPorts(svc: ComposeService): Map<number, number> {
  const ports = new Map<number, number>();
  for (const entry of svc.ports ?? []) {
    if (typeof entry === 'object') {
      ports.set(entry.target, Number(entry.published ?? entry.target));
      continue;
    }
    const parts = String(entry).split(':');
    const container = Number(parts.at(-1));
    ports.set(container, parts.length > 1 ? Number(parts.at(-2)) : container);
  }
  return ports;
}

describe('docker-compose.yml', () => {
  it('names every service docs/design.md asks for, plus the one-shot provisioner', () => {
    for (const name of ['postgres', 'redis', 'emulator', 'jaeger', 'provision', ...APP_SERVICES]) {
      expect(services, name).toHaveProperty(name);
    }
  });

  it('shares the service environment through an x-service-env anchor', () => {
    expect(composeText).toMatch(/^x-service-env: &service-env$/m);
    for (const name of APP_SERVICES) {
      expect(composeText).toMatch(new RegExp(`^  ${name}:\\n(?:    .*\\n)*?      <<: \\*service-env$`, 'm'));
    }
  });

  it.each(APP_SERVICES)('%s: its designed port, its own database and the shared settings', (name) => {
    const svc = service(name);
    const env = svc.environment ?? {};
    const port = servicePort(name);
    expect(publishedPorts(svc).get(port)).toBe(port);
    expect(env).toMatchObject({
      SERVICE: name,
      OTEL_SERVICE_NAME: name,
      PORT: String(port),
      HOST: '0.0.0.0',
      REDIS_URL: 'redis://redis:6379',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'http://emulator:4566',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_EC2_METADATA_DISABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318',
    });
    const db = new URL(String(env.DATABASE_URL));
    expect(db.protocol).toBe('postgres:');
    expect(db.hostname).toBe('postgres');
    expect(db.pathname).toBe(`/hireflow_${name}`);
    expect(['api', 'worker', 'all']).toContain(env.ROLE);
    // Compose passes values as strings; a bare `true` or number would be re-typed.
    for (const [key, value] of Object.entries(env)) expect(typeof value, key).toBe('string');
    expect(svc.healthcheck?.test?.join(' ')).toContain('ready');
    expect(svc.depends_on?.provision?.condition).toBe('service_completed_successfully');
  });

  it('runs the four services and the provisioner from the runtime image, the emulator from its own', () => {
    const fromRuntime = ['provision', ...APP_SERVICES].map(service);
    expect(new Set(fromRuntime.map((s) => s.image)).size).toBe(1);
    for (const svc of fromRuntime)
      expect(svc.build).toEqual({ context: '.', dockerfile: 'Dockerfile', target: 'runtime' });
    const emulator = service('emulator');
    expect(emulator.build).toEqual({ context: '.', dockerfile: 'Dockerfile', target: 'emulator' });
    expect(emulator.image).not.toBe(service('jobs').image);
    const stages = [...read('Dockerfile').matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    expect(stages).toEqual(expect.arrayContaining(['runtime', 'emulator']));
    expect(emulator.command).toEqual(['node', 'tools/emulator/src/cli/emulator.ts']);
    expect(service('provision').command).toEqual(['node', 'tools/ops/src/cli/provision.ts']);
    for (const script of ['tools/emulator/src/cli/emulator.ts', 'tools/ops/src/cli/provision.ts']) {
      expect(existsSync(new URL(script, root)), script).toBe(true);
    }
  });

  it('publishes the emulator on 4566 to the network and provisions it once healthy', () => {
    const emulator = service('emulator');
    expect(publishedPorts(emulator).get(4566)).toBe(4566);
    expect(emulator.environment).toMatchObject({ EMULATOR_HOST: '0.0.0.0', EMULATOR_PORT: '4566' });
    expect(emulator.healthcheck?.test?.join(' ')).toContain('/health');
    const provision = service('provision');
    expect(provision.depends_on?.emulator?.condition).toBe('service_healthy');
    expect(provision.environment).toMatchObject({ AWS_ENDPOINT_URL: 'http://emulator:4566' });
  });

  it('runs Jaeger v2 with its UI on 16686 and OTLP on 4318 (HTTP) and 4317 (gRPC)', () => {
    const jaeger = service('jaeger');
    expect(jaeger.image).toMatch(/^jaegertracing\/jaeger:2\./);
    const ports = publishedPorts(jaeger);
    for (const port of [16686, 4318, 4317]) expect(ports.get(port), String(port)).toBe(port);
  });

  it('points notifications at a mail catcher that has a UI', () => {
    const smtp = new URL(String(service('notifications').environment?.SMTP_URL));
    expect(smtp.protocol).toBe('smtp:');
    const catcher = service(smtp.hostname);
    expect(catcher.image).toMatch(/mailpit/);
    expect(smtp.port).toBe('1025');
    expect(publishedPorts(catcher).get(8025)).toBe(8025);
    expect(service('notifications').depends_on?.[smtp.hostname]).toBeDefined();
  });

  it('depends only on services that exist, waiting on health only where there is a check', () => {
    const conditions = ['service_started', 'service_healthy', 'service_completed_successfully'];
    for (const [name, svc] of Object.entries(services)) {
      for (const [target, { condition }] of Object.entries(svc.depends_on ?? {})) {
        expect(services, `${name} -> ${target}`).toHaveProperty(target);
        expect(conditions, `${name} -> ${target}`).toContain(condition);
        if (condition === 'service_healthy') {
          const check = service(target).healthcheck;
          expect(check?.test, `${target} needs a healthcheck`).toBeDefined();
          expect(check?.disable).not.toBe(true);
        }
      }
    }
    for (const name of ['postgres', 'redis']) expect(service(name).healthcheck?.test).toBeDefined();
  });
});

describe('Prometheus and Grafana in docker-compose.yml', () => {
  const prometheus = parse(read('deploy/compose/prometheus.yml')) as {
    scrape_configs: {
      metrics_path: string;
      authorization?: { type: string; credentials: string };
      static_configs: { targets: string[] }[];
    }[];
  };
  const serviceEnv = parse(composeText, { merge: true })['x-service-env'] as Record<string, string>;

  /** Where a mount's host path points, relative to the repository. */
  const mounted = (svc: ComposeService & { volumes?: string[] }, container: string) =>
    svc.volumes?.find((v) => v.split(':')[1] === container)?.split(':')[0];

  it('scrapes every service’s admin port with the admin token the services get', () => {
    const targets = prometheus.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
    expect(targets.sort()).toEqual(
      APP_SERVICES.map((name) => `${name}:${adminPortFor(servicePort(name))}`).sort(),
    );
    for (const config of prometheus.scrape_configs) {
      expect(config.metrics_path).toBe('/metrics');
      expect(config.authorization).toEqual({
        type: 'Bearer',
        credentials_file: '/run/hireflow-secrets/ADMIN_TOKEN',
      });
    }
    // The file the secrets one-shot writes, on the volume Prometheus and the services mount.
    const svcOf = (name: string) => service(name) as ComposeService & { volumes?: string[] };
    expect(mounted(svcOf('prometheus'), '/run/hireflow-secrets')).toBe('hireflow-secrets');
    // The admin listener is reachable inside the network: it binds every interface.
    expect(serviceEnv.ADMIN_HOST).toBe('0.0.0.0');
    const svc = service('prometheus') as ComposeService & { volumes?: string[] };
    expect(mounted(svc, '/etc/prometheus/prometheus.yml')).toBe('./deploy/compose/prometheus.yml');
  });

  it('API8: publishes no secret: the secrets one-shot generates them once into a volume, the services read them unless set, NODE_ENV is set', () => {
    for (const name of ['ADMIN_TOKEN', 'UNSUBSCRIBE_SIGNING_KEY', 'APIKEY_EVENT_KEY']) {
      expect(composeText).not.toMatch(new RegExp(`${name}:`));
    }
    expect(serviceEnv.NODE_ENV).toBe('development');
    const secrets = service('secrets') as ComposeService & { volumes?: string[]; entrypoint?: string[] };
    expect(secrets.entrypoint).toEqual(['/bin/sh', '/run/hireflow/secrets.sh']);
    expect(mounted(secrets, '/run/hireflow/secrets.sh')).toBe('./deploy/compose/secrets.sh');
    expect(mounted(secrets, '/run/hireflow-secrets')).toBe('hireflow-secrets');
    const script = read('deploy/compose/secrets.sh');
    const entry = read('deploy/compose/with-secrets.sh');
    for (const name of ['ADMIN_TOKEN', 'UNSUBSCRIBE_SIGNING_KEY', 'APIKEY_EVENT_KEY']) {
      expect(script).toContain(name);
      expect(entry).toContain(name);
    }
    expect(script).toMatch(/randomBytes\(32\)/);
    for (const name of APP_SERVICES) {
      const svc = service(name) as ComposeService & {
        volumes?: string[];
        entrypoint?: string[];
        command?: string[];
        depends_on?: Record<string, { condition: string }>;
      };
      expect(svc.entrypoint, name).toEqual(['/bin/sh', '/run/hireflow/with-secrets.sh']);
      expect(svc.command, name).toEqual(['hireflow', 'start']);
      expect(mounted(svc, '/run/hireflow-secrets'), name).toBe('hireflow-secrets');
      expect(svc.depends_on?.secrets?.condition, name).toBe('service_completed_successfully');
    }
  });

  it('provisions Grafana with Prometheus and the Hireflow dashboard from files that exist', () => {
    const grafana = service('grafana') as ComposeService & { volumes?: string[] };
    const provisioning = mounted(grafana, '/etc/grafana/provisioning')!;
    const dashboards = mounted(grafana, '/var/lib/grafana/dashboards')!;
    const datasources = parse(read(`${provisioning}/datasources/prometheus.yml`.slice(2))) as {
      datasources: { uid: string; url: string }[];
    };
    expect(datasources.datasources).toEqual([
      expect.objectContaining({ uid: 'prometheus', url: 'http://prometheus:9090' }),
    ]);
    const providers = parse(read(`${provisioning}/dashboards/hireflow.yml`.slice(2))) as {
      providers: { options: { path: string } }[];
    };
    expect(providers.providers[0]?.options.path).toBe('/var/lib/grafana/dashboards');
    expect(existsSync(new URL(`${dashboards.slice(2)}/hireflow.json`, root))).toBe(true);
  });

  it('charts only metrics the services export, and every signal an operator needs', async () => {
    const dashboard = JSON.parse(read('deploy/compose/grafana/dashboards/hireflow.json')) as {
      panels: { title: string; targets: { expr: string; datasource: { uid: string } }[] }[];
    };
    const metrics = createMetrics('test');
    metrics.exportQueues(true);
    const exported = new Set([...(await metrics.text()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    metrics.close();
    const used = new Set<string>();
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        expect(target.datasource.uid, panel.title).toBe('prometheus');
        for (const [name] of target.expr.matchAll(/hireflow_\w+/g))
          used.add(name.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    for (const name of used) expect(exported, name).toContain(name);
    for (const needed of [
      'hireflow_sqs_messages',
      'hireflow_bullmq_jobs',
      'hireflow_message_age_seconds',
      'hireflow_dead_letters',
      'hireflow_handler_duration_seconds',
      'hireflow_emails_total',
      'hireflow_outbox_backlog',
    ]) {
      expect(used, needed).toContain(needed);
    }
  });
});
