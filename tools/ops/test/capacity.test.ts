// `pnpm capacity`: a profile, fields overriding it, the model's answer as JSON.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type CapacityPlan, capacityProfiles, planCapacity } from '@hireflow/contracts/capacity';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cli = new URL('../src/cli/capacity.ts', import.meta.url).pathname;

describe('pnpm capacity', () => {
  it("prints the model's plan of a profile, a given field overriding it", async () => {
    const { stdout } = await run(process.execPath, [cli, '--profile', 'x100', '--tenants', '500', '--json']);
    const plan = JSON.parse(stdout) as CapacityPlan;
    expect(plan.profile.tenants).toBe(500);
    expect(plan.profile.postingsPerDay).toBe(capacityProfiles.x100!.postingsPerDay);
    const expected = planCapacity({ ...capacityProfiles.x100!, tenants: 500 });
    expect(plan.services.matching.worker).toEqual(expected.services.matching.worker);
    expect(plan.bindsFirst.name).toBe(expected.bindsFirst.name);
  });

  it('names the limit that binds first in its table, ceilings and quotas alike', async () => {
    const { stdout } = await run(process.execPath, [cli, '--profile', 'x10000']);
    expect(stdout).toMatch(/binds first: email provider rate .*, a quota/);
    // The per-tenant quota the plan sets itself is listed as a setting.
    expect(stdout).toMatch(/tenant daily email quota, the largest tenant .*'setting'/);
    expect(stdout).toMatch(/matching worker memory/);
    expect(stdout).toMatch(/SNS Publish, account quota in eu-west-1/);
    expect(stdout).toMatch(/SQS in-flight messages per queue/);
    // The quota as a deployment sets it, and another region's account quotas.
    const set = await run(process.execPath, [
      cli,
      '--profile',
      'x10000',
      '--tenant-daily-email-quota',
      '1000',
      '--region',
      'us-east-1',
    ]);
    expect(set.stdout).toMatch(/binds first: tenant daily email quota, the largest tenant .*, a quota/);
    expect(set.stdout).toMatch(/SNS Publish, account quota in us-east-1/);
    await expect(run(process.execPath, [cli, '--tenant-daily-email-quota', 'lots'])).rejects.toMatchObject({
      code: 64,
      stderr: expect.stringMatching(/--tenant-daily-email-quota must be/),
    });
  });

  it('refuses an unknown profile and a bad number', async () => {
    await expect(run(process.execPath, [cli, '--profile', 'huge'])).rejects.toMatchObject({
      code: 64,
      stderr: expect.stringMatching(/no profile huge; have small, x100, x10000/),
    });
    await expect(run(process.execPath, [cli, '--tenants', 'many'])).rejects.toMatchObject({
      code: 64,
      stderr: expect.stringMatching(/--tenants must be a number/),
    });
  });
});
