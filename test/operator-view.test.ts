// What an operator sees of a running `pnpm start` with the tools of their
// trade (docs/operations.md): the Prometheus file_sd targets of every process,
// pool workers included and kept current; `pnpm start --prometheus` scraping
// them and evaluating the alerting rules; `pnpm status`'s one view of queues
// and processes.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SERVICE_NAMES, topology, workerScaling } from '@hireflow/contracts';
import { waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAuth, cleanUp, type Launcher, launch, root } from './launcher.ts';

const run = promisify(execFile);
const instance = `opsview${randomBytes(3).toString('hex')}`;
const stateDir = `.local/test-${instance}`;
const instanceDir = join(root, stateDir, instance);

interface FileSdEntry {
  targets: string[];
  labels: { service: string; role: string; process: string; pid: string };
}
const targets = async () =>
  JSON.parse(await readFile(join(instanceDir, 'prometheus-targets.json'), 'utf8')) as FileSdEntry[];

async function status(): Promise<string> {
  const { stdout } = await run(process.execPath, [join(root, 'tools/launcher/src/cli/status.ts')], {
    cwd: root,
    env: { ...process.env, HIREFLOW_INSTANCE: instance, HIREFLOW_STATE_DIR: stateDir },
  });
  return stdout;
}

/** The table's rows as cells (columns are separated by two spaces or more). */
const rows = (text: string) => text.split('\n').map((line) => line.trim().split(/\s{2,}/));

describe('the operator view of a running system', () => {
  let launcher: Launcher | undefined;
  let prometheus: string | undefined;

  beforeAll(async () => {
    // Worker pools on (the default): their admin ports are random, which is the point.
    launcher = launch(instance, stateDir, { HIREFLOW_SCALING: 'on', PROMETHEUS_PORT: '0' }, ['--prometheus']);
    await launcher.waitForLine((l) => l.startsWith('Ctrl-C stops everything'), 240_000);
    prometheus = launcher.lines.map((l) => l.match(/^ {2}prometheus\s+(http:\/\/\S+)/)).find(Boolean)?.[1];
  }, 300_000);

  afterAll(async () => {
    await cleanUp(launcher, instance, stateDir);
  }, 120_000);

  it('lists every process in the file_sd targets, and keeps the list current as a pool replaces a worker', async () => {
    const minimum = SERVICE_NAMES.reduce((sum, s) => sum + workerScaling[s].minWorkers, 0);
    const listed = await waitFor(
      async () => {
        const t = await targets();
        return t.filter((e) => e.labels.role === 'worker').length >= minimum && t;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(
      listed
        .filter((e) => e.labels.role === 'api')
        .map((e) => e.labels.service)
        .sort(),
    ).toEqual([...SERVICE_NAMES].sort());
    for (const entry of listed) {
      // Each target is a live process's admin listener.
      const res = await fetch(`http://${entry.targets[0]}/metrics`, {
        headers: await adminAuth(instance, stateDir),
      });
      expect(res.status, entry.labels.process).toBe(200);
      expect(() => process.kill(Number(entry.labels.pid), 0), entry.labels.process).not.toThrow();
    }

    // A worker dies: the pool replaces it, and the targets follow.
    const victim = listed.find((e) => e.labels.role === 'worker' && e.labels.service === 'notifications')!;
    process.kill(Number(victim.labels.pid), 'SIGKILL');
    const after = await waitFor(
      async () => {
        const t = await targets();
        const workers = t.filter((e) => e.labels.service === 'notifications' && e.labels.role === 'worker');
        return !t.some((e) => e.labels.pid === victim.labels.pid) && workers.length >= 1 && workers;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    expect(after.map((e) => e.labels.process)).not.toContain(victim.labels.process);
  }, 400_000);

  it('pnpm status shows a dead letter a test put in a DLQ, and every process', async () => {
    const endpoint = launcher!.lines.map((l) => l.match(/^ {2}sns\/sqs\s+(http:\/\/\S+)/)).find(Boolean)?.[1];
    expect(endpoint).toBeDefined();
    // SQS's JSON protocol, as the AWS SDK speaks it (the emulator checks no signature).
    const sqs = async (action: string, body: Record<string, string>) => {
      const res = await fetch(endpoint!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
        body: JSON.stringify(body),
      });
      expect(res.status, `${action}: ${await res.clone().text()}`).toBe(200);
      return (await res.json()) as Record<string, string>;
    };
    const { QueueUrl } = await sqs('GetQueueUrl', { QueueName: `${instance}-matching-inbox-dlq` });
    await sqs('SendMessage', { QueueUrl: QueueUrl!, MessageBody: '{"poison":true}' });

    const text = await waitFor(
      async () => {
        const out = await status();
        const table = rows(out);
        const row = table.find((r) => r[0] === 'matching' && r[1] === 'matching-inbox');
        // Each service's queue gauges appear once its sampler has run (and its scrape answered).
        const everyInbox = Object.keys(topology.queues).every((q) => table.some((r) => r[1] === q));
        return row?.[7] === '1' && everyInbox && out;
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
    );
    const table = rows(text);
    expect(table[0]).toEqual(['SERVICE', 'QUEUE', 'KIND', 'DEPTH', 'IN FLIGHT', 'DELAYED', 'OLDEST', 'DLQ']);
    // Every inbox, and BullMQ's queues (notifications' email among them).
    for (const queue of Object.keys(topology.queues)) {
      expect(
        table.some((r) => r[1] === queue && r[2] === 'sqs'),
        queue,
      ).toBe(true);
    }
    expect(table.some((r) => r[0] === 'notifications' && r[2] === 'bullmq')).toBe(true);
    // Every process of the targets file, with its pid, RSS and CPU.
    const header = table.findIndex((r) => r[0] === 'PROCESS');
    expect(table[header]).toEqual(['PROCESS', 'SERVICE', 'ROLE', 'PID', 'RSS', 'CPU', 'ADMIN']);
    const processes = table.slice(header + 1).filter((r) => r.length > 1);
    const listed = await targets();
    expect(processes.map((r) => r[3]).sort()).toEqual(listed.map((e) => e.labels.pid).sort());
    for (const r of processes) {
      expect(r[4], r[0]).toMatch(/^\d+ MB$/);
      expect(r[5], r[0]).toMatch(/^\d+\.\d%$/);
    }
  }, 400_000);

  it('pnpm start --prometheus scrapes every process and sees every inbox and DLQ, and the alert rules', async () => {
    expect(prometheus, 'no local Prometheus: is Debian’s prometheus package installed?').toBeDefined();
    const query = async (q: string) => {
      const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(q)}`);
      return (
        (await res.json()) as {
          data: { result: { metric: Record<string, string>; value: [number, string] }[] };
        }
      ).data.result;
    };
    const expected = Object.keys(topology.queues)
      .flatMap((q) => [q, `${q}-dlq`])
      .sort();
    await waitFor(
      async () => {
        const seen = new Set((await query('hireflow_sqs_messages')).map((r) => r.metric.queue));
        return expected.every((q) => seen.has(q));
      },
      { timeoutMs: 180_000, intervalMs: 1000, message: 'hireflow_sqs_messages for every inbox and DLQ' },
    );
    // Every process the targets list is up, pool workers included.
    const listed = await targets();
    const up = await waitFor(
      async () => {
        const result = await query('up{job="hireflow"} == 1');
        return result.length >= listed.length && result;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect(up.some((r) => r.metric.role === 'worker')).toBe(true);
    // The alerting rules are loaded: the dead letter of the test before is pending or firing.
    await waitFor(
      async () => (await query('ALERTS{alertname="HireflowDeadLetters", queue="matching-inbox"}')).length > 0,
      { timeoutMs: 120_000, intervalMs: 1000, message: 'HireflowDeadLetters for matching-inbox' },
    );
  }, 400_000);

  it('stops its Prometheus with the launcher, even a launcher killed outright', async () => {
    launcher!.child.kill('SIGKILL');
    await launcher!.exited;
    await waitFor(
      async () => {
        try {
          await fetch(`${prometheus}/-/ready`, { signal: AbortSignal.timeout(2000) });
          return false;
        } catch {
          return true; // nothing listens any more
        }
      },
      { timeoutMs: 60_000, intervalMs: 500, message: 'Prometheus outlived the launcher' },
    );
  }, 120_000);
});
