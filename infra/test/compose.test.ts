// Docker cannot run here, so these tests hold the compose file and the
// Dockerfile to the contract in docs/design.md ("Running it") and to the repo:
// services, ports, environment, dependencies, and the image recipe.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { adminPortFor, SERVICE_NAMES, servicePort } from '@hireflow/contracts';
import { createMetrics } from '@hireflow/runtime';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
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

  it('runs the four services, the emulator and the provisioner from one image built here', () => {
    const fromImage = ['emulator', 'provision', ...APP_SERVICES].map(service);
    expect(new Set(fromImage.map((s) => s.image)).size).toBe(1);
    for (const svc of fromImage) expect(svc.build).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(service('emulator').command).toEqual(['node', 'tools/emulator/src/cli/emulator.ts']);
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
  const prometheus = parse(read('infra/compose/prometheus.yml')) as {
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
      expect(config.authorization).toEqual({ type: 'Bearer', credentials: serviceEnv.ADMIN_TOKEN });
    }
    // The admin listener is reachable inside the network: it binds every interface.
    expect(serviceEnv.ADMIN_HOST).toBe('0.0.0.0');
    const svc = service('prometheus') as ComposeService & { volumes?: string[] };
    expect(mounted(svc, '/etc/prometheus/prometheus.yml')).toBe('./infra/compose/prometheus.yml');
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
    const dashboard = JSON.parse(read('infra/compose/grafana/dashboards/hireflow.json')) as {
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

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The workspace's packages by name, from pnpm-workspace.yaml. */
function workspaceManifests(): Map<string, Manifest> {
  const { packages } = parse(read('pnpm-workspace.yaml')) as { packages: string[] };
  const dirs = packages.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(new URL(pattern.slice(0, -1), root)).map((name) => `${pattern.slice(0, -1)}${name}`)
      : [pattern],
  );
  const manifests = dirs
    .filter((dir) => existsSync(new URL(`${dir}/package.json`, root)))
    .map((dir) => JSON.parse(read(`${dir}/package.json`)) as Manifest);
  return new Map(manifests.map((m) => [m.name, m]));
}

/**
 * The projects `--filter '<name>...'` selects: the package and every workspace
 * package it depends on, dev dependencies included (pnpm follows them too).
 */
function filterSelection(filters: string[], manifests: Map<string, Manifest>): Set<string> {
  const selected = new Set<string>();
  const visit = (name: string) => {
    const manifest = manifests.get(name);
    if (!manifest || selected.has(name)) return;
    selected.add(name);
    for (const deps of [manifest.dependencies, manifest.devDependencies, manifest.optionalDependencies]) {
      for (const [dep, version] of Object.entries(deps ?? {}))
        if (version.startsWith('workspace:')) visit(dep);
    }
  };
  for (const filter of filters) {
    expect(filter, 'only `<package>...` filters are understood here').toMatch(/^@[\w/-]+\.\.\.$/);
    visit(filter.slice(0, -3));
  }
  return selected;
}

interface Instruction {
  keyword: string;
  args: string;
  heredoc?: string;
}

/** Dockerfile instructions: comments dropped, `\` continuations joined, heredoc bodies attached. */
function parseDockerfile(text: string): Instruction[] {
  const lines = text.split('\n');
  const instructions: Instruction[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
    const [, keyword = '', args = ''] = /^\s*(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction: Instruction = { keyword: keyword.toUpperCase(), args };
    const delimiter = /<<-?['"]?(\w+)['"]?/.exec(args)?.[1];
    if (delimiter) {
      const body: string[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== delimiter) body.push(lines[++i]!);
      i++;
      instruction.heredoc = `${body.join('\n')}\n`;
    }
    instructions.push(instruction);
  }
  return instructions;
}

describe('Dockerfile', () => {
  const instructions = parseDockerfile(read('Dockerfile'));
  const froms = instructions.filter((i) => i.keyword === 'FROM');
  const finalStage = instructions.slice(instructions.lastIndexOf(froms.at(-1)!));
  const startScript = instructions.find((i) => i.heredoc?.startsWith('#!/bin/sh'))?.heredoc ?? '';

  it('builds in stages on the Node of .nvmrc', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const stages = new Set<string>();
    const bases: string[] = [];
    for (const from of froms) {
      const [image = '', as, stage] = from.args.split(/\s+/);
      if (!stages.has(image)) bases.push(image);
      if (as?.toUpperCase() === 'AS' && stage) stages.add(stage);
    }
    const nvmrc = read('.nvmrc').trim();
    expect(nvmrc).toMatch(/^24\./);
    for (const base of bases) expect(base).toMatch(new RegExp(`^node:${nvmrc.replaceAll('.', '\\.')}-`));
  });

  it('installs production dependencies with the pinned pnpm and the frozen lockfile', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const pnpmVersion = JSON.parse(read('package.json')).packageManager.replace(/^pnpm@/, '');
    expect(runs.some((r) => r.includes(`pnpm@${pnpmVersion}`))).toBe(true);
    const install = runs.find((r) => /\bpnpm install\b/.test(r)) ?? '';
    expect(install).toContain('--frozen-lockfile');
    expect(install).toContain('--prod');
    // Type stripping skips node_modules: a `pnpm deploy` bundle could not run.
    expect(runs.some((r) => r.includes('pnpm deploy'))).toBe(false);
    for (const name of APP_SERVICES) expect(install).toContain(`@hireflow/${name}`);
    expect(install).toContain('@hireflow/infra');
  });

  it('keeps the AWS CDK app (aws-cdk-lib, ~186 MB) out of the production install and the build context', () => {
    const install = instructions.find((i) => i.keyword === 'RUN' && /\bpnpm install\b/.test(i.args))!.args;
    const filters = [...install.matchAll(/--filter\s+'([^']+)'/g)].map((m) => m[1]!);
    const manifests = workspaceManifests();
    expect(manifests.get('@hireflow/aws')?.dependencies).toHaveProperty('aws-cdk-lib');
    const selected = filterSelection(filters, manifests);
    for (const name of APP_SERVICES) expect(selected).toContain(`@hireflow/${name}`);
    expect(selected).not.toContain('@hireflow/aws');
    for (const name of selected) {
      const manifest = manifests.get(name)!;
      for (const deps of [manifest.dependencies, manifest.devDependencies]) {
        expect(deps ?? {}, name).not.toHaveProperty('aws-cdk-lib');
        expect(deps ?? {}, name).not.toHaveProperty('aws-cdk');
      }
    }
    // Nor is it in the context: the install finds no infra/aws/package.json to link.
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toContain('infra/aws');
  });

  it('runs as a non-root user in production mode with a liveness check', () => {
    const user = finalStage.findLast((i) => i.keyword === 'USER')?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user?.split(':')[0]);
    expect(finalStage.some((i) => i.keyword === 'ENV' && /NODE_ENV=production/.test(i.args))).toBe(true);
    expect(finalStage.find((i) => i.keyword === 'HEALTHCHECK')?.args).toMatch(/health.*live/);
    expect(finalStage.find((i) => i.keyword === 'CMD')?.args).toBeDefined();
  });

  it('starts each service on its port from libs/contracts with the telemetry preloaded', () => {
    // The script names no port and no service: the port comes from the contracts, the service from services/.
    expect(startScript).not.toMatch(/\b[34]00[1-4]\b/);
    for (const name of APP_SERVICES) expect(startScript).not.toContain(name);
    const portsFrom = /import \{ servicePort \} from '\.\/(\S+)'/.exec(startScript)?.[1];
    expect(portsFrom).toBe('libs/contracts/src/services.ts');
    expect(existsSync(new URL(portsFrom!, root))).toBe(true);
    const exposed = finalStage
      .find((i) => i.keyword === 'EXPOSE')
      ?.args.split(/\s+/)
      .map(Number);
    expect(exposed).toEqual(APP_SERVICES.map((name) => servicePort(name)));
    const preload = /--import (\S+)/.exec(startScript)?.[1];
    expect(preload && existsSync(new URL(preload, root)), preload).toBe(true);
    expect(startScript).toContain('services/$service/src/main.ts');
    expect(startScript).toContain('/health/$probe');
  });

  it('has a start script that refuses an unknown SERVICE and fails its probe when nothing listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hireflow-start-'));
    const script = join(dir, 'hireflow');
    writeFileSync(script, startScript);
    const run = (env: Record<string, string>, ...args: string[]) =>
      promisify(execFile)('sh', [script, ...args], { env: { PATH: process.env.PATH, ...env } }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
    expect(await run({}, 'start')).toBe(64);
    expect(await run({ SERVICE: 'billing' }, 'start')).toBe(64);
    expect(await run({ SERVICE: 'jobs', PORT: '1' }, 'health', 'live')).toBe(1);
  });

  it('leaves host artefacts out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const entry of ['**/node_modules', '.toolchain', '.git', '.local', 'coverage']) {
      expect(ignored).toContain(entry);
    }
    for (const needed of [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'libs',
      'services',
      'infra',
    ]) {
      expect(ignored).not.toContain(needed);
    }
  });
});
