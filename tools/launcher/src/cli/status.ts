// `pnpm status`: every queue (depth, in flight, delayed, oldest age, dead
// letters) and every process (role, pid, RSS, CPU) of the running `pnpm start`
// instance, from its processes' /metrics (the targets file lists them all,
// pool workers included). HIREFLOW_INSTANCE / HIREFLOW_STATE_DIR pick the
// instance; the admin token is ADMIN_TOKEN when set, else the one the instance
// generated (its secrets file). Exit 1 when nothing runs.
import { resolve } from 'node:path';
import { parseConfig } from '@hireflow/config';
import { findRunning, instanceNames, instanceSchema, parseMetrics, type Sample } from '@hireflow/ops';
import { readLocalSecrets } from '../local-secrets.ts';
import { readTargets, targetsPath } from '../prometheus/targets.ts';
import { type ProcessScrape, processRows, queueRows, renderStatus } from '../status/table.ts';

const root = resolve(import.meta.dirname, '../../../..');
const settings = parseConfig(instanceSchema, process.env);
const { stateDir } = instanceNames({ ...settings, HIREFLOW_TOPOLOGY_PREFIX: '' }, root);
const token = process.env.ADMIN_TOKEN || (await readLocalSecrets(stateDir)).ADMIN_TOKEN;

const running = await findRunning(stateDir);
if (!running) {
  console.error(`Hireflow is not running from ${stateDir} (start it: pnpm start)`);
  process.exit(1);
}
const processes = await readTargets(stateDir).catch(() => []);
if (processes.length === 0) {
  console.error(`no processes listed in ${targetsPath(stateDir)} yet: is the launcher still starting?`);
  process.exit(1);
}

async function scrape(admin: string): Promise<Sample[] | undefined> {
  try {
    const res = await fetch(`${admin}/metrics`, {
      signal: AbortSignal.timeout(5000),
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    });
    return res.ok ? parseMetrics(await res.text()) : undefined;
  } catch {
    return undefined;
  }
}

// Two scrapes a second apart: CPU is the share of a core between them.
const first = await Promise.all(processes.map((p) => scrape(p.admin)));
const firstAt = Date.now();
await new Promise((r) => setTimeout(r, 1000));
const seconds = (Date.now() - firstAt) / 1000;
const second = await Promise.all(processes.map((p) => scrape(p.admin)));
const scrapes: ProcessScrape[] = processes.map((process, i) => ({
  process,
  first: first[i],
  second: second[i],
  seconds,
}));

const queues = queueRows(scrapes);
for (const line of renderStatus(queues, processRows(scrapes))) console.log(line);
if (queues.length === 0)
  console.log('\n(no process exports queue gauges yet: the sampler runs every few seconds)');
