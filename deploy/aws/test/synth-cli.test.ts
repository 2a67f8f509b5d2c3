// `pnpm synth` as a user runs it: the package script's own command and flags,
// the CDK CLI, no AWS account and no network (proxies pointed at a closed
// port). Its template passes the CDK's CloudFormation rule checks, and its
// task sizes and counts are the capacity model's for the default profile.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CapacityPlan, DEFAULT_CAPACITY_PROFILE } from '@hireflow/contracts/capacity';
import { afterAll, describe, expect, it } from 'vitest';
import { capacityFor } from '../src/index.ts';
import { referencedIds, refOf, resource, resourcesOfType, type TemplateJson } from './template.ts';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const script: string = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).scripts.synth;
const out = mkdtempSync(join(tmpdir(), 'hireflow-synth-'));

/** The script's `VAR=value … cdk <args>`, run with the package's cdk binary. */
function synth(...extra: string[]) {
  const words = script.split(/\s+/);
  const assignments = words.filter((w) => /^[A-Z_]+=/.test(w));
  const [command, ...args] = words.slice(assignments.length);
  expect(command).toBe('cdk');
  const closed = 'http://127.0.0.1:9';
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: mkdtempSync(join(tmpdir(), 'hireflow-synth-home-')),
    HTTPS_PROXY: closed,
    HTTP_PROXY: closed,
    AWS_EC2_METADATA_DISABLED: 'true',
    ...Object.fromEntries(assignments.map((a) => a.split('=') as [string, string])),
  };
  return promisify(execFile)(join(packageDir, 'node_modules/.bin/cdk'), [...args, ...extra], {
    cwd: packageDir,
    env,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Fleet {
  [serviceAndRole: string]: { cpu: number; memoryMiB: number; minTasks?: number; maxTasks?: number };
}

/** Each ECS service of a template by its app's SERVICE/ROLE: its task size and its scaling bounds. */
function fleetOf(template: TemplateJson): Fleet {
  const fleet: Fleet = {};
  for (const [serviceId, service] of resourcesOfType(template, 'AWS::ECS::Service')) {
    const task = resource(template, refOf(service.Properties.TaskDefinition));
    const app = task.Properties.ContainerDefinitions.find((c: { Name: string }) => c.Name === 'app') as {
      Environment: { Name: string; Value: string }[];
    };
    const env = Object.fromEntries(app.Environment.map((e) => [e.Name, e.Value]));
    const target = resourcesOfType(template, 'AWS::ApplicationAutoScaling::ScalableTarget').find(([, t]) =>
      referencedIds(t.Properties.ResourceId).has(serviceId),
    )?.[1];
    fleet[`${env.SERVICE}/${env.ROLE}`] = {
      cpu: Number(task.Properties.Cpu),
      memoryMiB: Number(task.Properties.Memory),
      ...(target ? { minTasks: target.Properties.MinCapacity, maxTasks: target.Properties.MaxCapacity } : {}),
    };
  }
  return fleet;
}

/** The same from the model: every role of the four scaled within its bounds, each subscriber one task. */
function modelFleet(capacity: CapacityPlan): Fleet {
  const fleet: Fleet = {};
  for (const [service, roles] of Object.entries(capacity.services)) {
    for (const [role, r] of Object.entries(roles))
      fleet[`${service}/${role}`] = {
        cpu: r.cpu,
        memoryMiB: r.memoryMiB,
        minTasks: r.minTasks,
        maxTasks: r.maxTasks,
      };
  }
  for (const s of capacity.subscribers) fleet[`${s.name}/worker`] = { cpu: s.cpu, memoryMiB: s.memoryMiB };
  return fleet;
}

describe('pnpm synth', () => {
  it('turns telemetry, notices and version reporting off', () => {
    expect(script).toContain('CDK_DISABLE_CLI_TELEMETRY=true');
    for (const flag of ['--no-notices', '--no-version-reporting']) expect(script).toContain(flag);
  });

  // The CLI synth with the rule checks took over 120 s at load 50 on the shared two-core machine.
  it('writes the template offline, clean of CloudFormation rule findings', { timeout: 300_000 }, async () => {
    const result = await synth('--output', out);
    expect(result.code, result.stderr).toBe(0);
    const template = JSON.parse(readFileSync(join(out, 'hireflow.template.json'), 'utf8'));
    expect(Object.keys(template.Resources).length).toBeGreaterThan(100);
    expect(JSON.stringify(template)).not.toContain('AWS::CDK::Metadata');
    const report = JSON.parse(readFileSync(join(out, 'validation-report.json'), 'utf8'));
    expect(report.pluginReports).toEqual([]);
    expect(existsSync(join(out, 'hireflow.assets.json'))).toBe(true);

    // The task sizes and counts are the capacity model's for the default profile.
    expect(fleetOf(template)).toEqual(modelFleet(capacityFor(DEFAULT_CAPACITY_PROFILE)));
  });

  it('refuses bad context with a message naming the key', { timeout: 60_000 }, async () => {
    const result = await synth('--output', join(out, 'bad'), '-c', 'prefix=Not Valid');
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toContain('prefix: must contain only lowercase letters');
  });
});
