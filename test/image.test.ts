// Docker cannot run here, so these tests hold the Dockerfile to the repo: the
// Node of .nvmrc, a production install of the services, the libraries and the
// operations tools only (pnpm itself says what the install's filters select),
// the emulator in an image of its own, the AWS CDK app out of the context,
// and a start script that takes ports from libs/contracts.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SERVICE_NAMES, servicePort } from '@hireflow/contracts';
import { SERVICE_MALLOC_ARENA_MAX, SERVICE_NODE_FLAGS } from '@hireflow/runtime/process';
import { describe, expect, it } from 'vitest';
import { installOf, parseDockerfile, pnpmSelection, stagesOf } from './dockerfile.ts';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const instructions = parseDockerfile(read('Dockerfile'));
const stages = stagesOf(instructions);
const stage = (name: string) => {
  const found = stages.get(name);
  if (!found) throw new Error(`the Dockerfile has no stage ${name}`);
  return found;
};
const runtime = stage('runtime');
const startScript = runtime.find((i) => i.heredoc?.startsWith('#!/bin/sh'))?.heredoc ?? '';
const ignored = read('.dockerignore')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

/** Packages the production image may carry: the services, the libraries and the operations tools. */
const SHIPPED = [
  ...readdirSync(new URL('services/', root)).map((name) => `@hireflow/${name}`),
  ...readdirSync(new URL('libs/', root))
    .filter((name) => name !== 'testing')
    .map((name) => `@hireflow/${name}`),
  '@hireflow/ops',
];

/** What no shipped package may depend on: the emulator, test servers and helpers, the CDK. */
const NEVER_SHIPPED = ['fauxqs', 'smtp-server', 'vitest', 'aws-cdk-lib', 'aws-cdk'];

function manifest(name: string): { dependencies?: Record<string, string> } {
  for (const dir of ['libs', 'services', 'tools', 'deploy', 'clients']) {
    for (const entry of readdirSync(new URL(`${dir}/`, root))) {
      const file = new URL(`${dir}/${entry}/package.json`, root);
      if (!existsSync(file)) continue;
      const parsed = JSON.parse(readFileSync(file, 'utf8'));
      if (parsed.name === name) return parsed;
    }
  }
  throw new Error(`no package ${name}`);
}

describe('Dockerfile', () => {
  it('builds in stages on the Node of .nvmrc, the runtime last (the default target)', () => {
    const froms = instructions.filter((i) => i.keyword === 'FROM');
    const bases = froms.map((f) => f.args.split(/\s+/)[0]!).filter((image) => !stages.has(image));
    const nvmrc = read('.nvmrc').trim();
    expect(nvmrc).toMatch(/^24\./);
    for (const base of bases) expect(base).toMatch(new RegExp(`^node:${nvmrc.replaceAll('.', '\\.')}-`));
    expect([...stages.keys()].at(-1)).toBe('runtime');
  });

  it('installs with the pinned pnpm, the frozen lockfile, production dependencies only', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const pnpmVersion = JSON.parse(read('package.json')).packageManager.replace(/^pnpm@/, '');
    expect(runs.some((r) => r.includes(`pnpm@${pnpmVersion}`))).toBe(true);
    // Type stripping skips node_modules: a `pnpm deploy` bundle could not run.
    expect(runs.some((r) => r.includes('pnpm deploy'))).toBe(false);
    for (const name of ['install', 'emulator-install']) {
      const install = installOf(stage(name));
      expect(install.run, name).toContain('--frozen-lockfile');
      expect(install.run, name).toContain('--prod');
      // `--filter` follows devDependencies: the test helpers, bench and the other tools would come in.
      expect(install.filter, name).toEqual([]);
      expect(install.filterProd.length, name).toBeGreaterThan(0);
    }
  });

  it('installs the services, the libraries and the operations tools into the runtime image, nothing else', async () => {
    const install = installOf(stage('install'));
    const selected = await pnpmSelection(fileURLToPath(root), install.filterProd);
    for (const name of SERVICE_NAMES) expect(selected).toContain(`@hireflow/${name}`);
    expect(selected).toContain('@hireflow/ops');
    expect(selected.filter((name) => !SHIPPED.includes(name))).toEqual([]);
    for (const name of selected) {
      for (const dependency of NEVER_SHIPPED)
        expect(manifest(name).dependencies ?? {}, name).not.toHaveProperty(dependency);
    }
    // And the runtime image is that install: nothing is copied in from another stage.
    const copiedFrom = runtime
      .filter((i) => i.keyword === 'COPY')
      .flatMap((i) => /--from=(\S+)/.exec(i.args)?.[1] ?? []);
    expect(copiedFrom).toEqual(['install']);
    // The emulator's sources leave before that install (they are in the context for their own stage).
    expect(install.run).toMatch(/^rm -rf tools\/emulator && pnpm install /);
  });

  it('runs the emulator from a stage of its own that installs it alone', async () => {
    const install = installOf(stage('emulator-install'));
    expect(await pnpmSelection(fileURLToPath(root), install.filterProd)).toEqual(['@hireflow/emulator']);
    const emulator = stage('emulator');
    const cmd = JSON.parse(emulator.find((i) => i.keyword === 'CMD')!.args) as string[];
    expect(cmd).toEqual(['node', 'tools/emulator/src/cli/emulator.ts']);
    expect(existsSync(new URL(cmd[1]!, root))).toBe(true);
    expect(['root', '0']).not.toContain(emulator.findLast((i) => i.keyword === 'USER')?.args);
  });

  it('keeps the AWS CDK app, the other tools, tests and docs out of the build context', () => {
    // Without deploy/aws/package.json the filtered install cannot link aws-cdk-lib (~186 MB).
    for (const entry of ['deploy', '**/test', 'docs', 'bench', 'tools/*']) expect(ignored).toContain(entry);
    // …but the tools the images run come back in, after the pattern that left them out.
    const tools = ignored.indexOf('tools/*');
    for (const kept of ['!tools/ops', '!tools/emulator'])
      expect(ignored.indexOf(kept)).toBeGreaterThan(tools);
  });

  it('leaves host artefacts out of the build context, and what the install needs in', () => {
    for (const entry of ['**/node_modules', '.toolchain', '.git', '.local', 'coverage']) {
      expect(ignored).toContain(entry);
    }
    for (const needed of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'libs', 'services']) {
      expect(ignored).not.toContain(needed);
    }
  });

  it('runs as a non-root user in production mode with a liveness check', () => {
    const user = runtime.findLast((i) => i.keyword === 'USER')?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user?.split(':')[0]);
    expect(runtime.some((i) => i.keyword === 'ENV' && /NODE_ENV=production/.test(i.args))).toBe(true);
    expect(runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args).toMatch(/health.*live/);
    expect(runtime.find((i) => i.keyword === 'CMD')?.args).toBeDefined();
  });

  it('starts each service on its port from libs/contracts with the telemetry preloaded', () => {
    // The script names no port and no service: the port comes from the contracts, the service from services/.
    expect(startScript).not.toMatch(/\b[34]00[1-4]\b/);
    for (const name of SERVICE_NAMES) expect(startScript).not.toContain(name);
    const portsFrom = /import \{ servicePort \} from '\.\/(\S+)'/.exec(startScript)?.[1];
    expect(portsFrom).toBe('libs/contracts/src/services.ts');
    expect(existsSync(new URL(portsFrom!, root))).toBe(true);
    const exposed = runtime
      .find((i) => i.keyword === 'EXPOSE')
      ?.args.split(/\s+/)
      .map(Number);
    expect(exposed).toEqual(SERVICE_NAMES.map((name) => servicePort(name)));
    const preload = /--import (\S+)/.exec(startScript)?.[1];
    expect(preload && existsSync(new URL(preload, root)), preload).toBe(true);
    expect(startScript).toContain('"$dir/src/main.ts"');
    expect(startScript).toContain('/health/$probe');
  });

  it('starts a service with the flags, the compile cache and the malloc arenas the launcher gives it (issue 31)', () => {
    const start = /exec node (.*)"\$dir\/src\/main\.ts"/.exec(startScript)?.[1] ?? '';
    for (const flag of SERVICE_NODE_FLAGS) expect(start).toContain(flag);
    const env = runtime.find((i) => i.keyword === 'ENV' && /NODE_COMPILE_CACHE=/.test(i.args))?.args ?? '';
    const cache = /NODE_COMPILE_CACHE=(\S+)/.exec(env)?.[1];
    expect(cache).toMatch(/^\/app\//);
    expect(/MALLOC_ARENA_MAX=(\S+)/.exec(env)?.[1]).toBe(SERVICE_MALLOC_ARENA_MAX);
    // Filled at build, by a RUN after the install is copied in: each service's
    // definition and its worker (which the definition imports only in a worker process).
    const runs = runtime.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const fills = (r: string) =>
      r.includes("services/' + s + '/src/service.ts") &&
      r.includes("services/' + s + '/src/worker.ts") &&
      r.includes(cache!);
    expect(runs.some(fills)).toBe(true);
  });

  it('has a start script that refuses an unknown SERVICE and fails its probe when nothing listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hireflow-start-'));
    const script = join(dir, 'hireflow');
    writeFileSync(script, startScript);
    const run = (env: Record<string, string>, ...args: string[]) =>
      promisify(execFile)('sh', [script, ...args], {
        cwd: fileURLToPath(root),
        env: { PATH: process.env.PATH ?? '', ...env },
      }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
    expect(await run({}, 'start')).toBe(64);
    expect(await run({ SERVICE: 'billing' }, 'start')).toBe(64);
    expect(await run({ SERVICE: '../libs' }, 'start')).toBe(64);
    expect(await run({ SERVICE: 'jobs', PORT: '1' }, 'health', 'live')).toBe(1);
  });

  it('starts a service by the name its package declares, in a folder named otherwise (new:subscriber --dir)', async () => {
    const app = mkdtempSync(join(tmpdir(), 'hireflow-app-'));
    mkdirSync(join(app, 'services/crm-sync/src'), { recursive: true });
    writeFileSync(
      join(app, 'services/crm-sync/package.json'),
      '{\n  "name": "@hireflow/crm",\n  "private": true\n}\n',
    );
    writeFileSync(join(app, 'services/crm-sync/src/main.ts'), "console.log('crm started');\n");
    mkdirSync(join(app, 'libs/telemetry/src'), { recursive: true });
    writeFileSync(join(app, 'libs/telemetry/src/register.ts'), '');
    const script = join(app, 'hireflow');
    writeFileSync(script, startScript);
    const start = (service: string) =>
      promisify(execFile)('sh', [script, 'start'], {
        cwd: app,
        env: { PATH: process.env.PATH ?? '', SERVICE: service },
      }).then(
        ({ stdout }) => ({ code: 0, out: stdout }),
        (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
      );
    try {
      expect(await start('crm')).toEqual({ code: 0, out: 'crm started\n' });
      // The folder's name is no service's, and the refusal lists the declared names.
      expect(await start('crm-sync')).toEqual({
        code: 64,
        out: "hireflow: set SERVICE to one of: crm (got 'crm-sync')\n",
      });
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});
