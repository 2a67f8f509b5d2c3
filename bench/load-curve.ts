// `pnpm bench:chart [label]`: throughput and p99 of POST /v1/jobs and of the
// bare Fastify + INSERT route against offered load (autocannon at a fixed
// overall rate, 127.0.0.1 only), interleaved step by step. Writes the figures
// to docs/performance/jobs-load-<label>.json and the chart to
// docs/performance/jobs-load-<label>.svg (label default: "after"); `--render`
// redraws the chart from the stored figures.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { type LoadPoint, loadChart } from './chart.ts';
import { postingBody, startTargets } from './jobs-targets.ts';

const label = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'after';
const RATES = (process.env.BENCH_RATES ?? '100,200,400,600,800,1000,1300,1600,2000').split(',').map(Number);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const CONNECTIONS = 100;

async function step(
  target: { url: string; headers: Record<string, string> },
  rate: number,
): Promise<LoadPoint> {
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: postingBody,
    connections: CONNECTIONS,
    overallRate: rate,
    duration: DURATION_S,
    workers: 1,
  });
  return { offered: rate, achieved: result['2xx'] / DURATION_S, p99: result.latency.p99 };
}

const dir = join(import.meta.dirname, '..', 'docs', 'performance');
const render = process.argv.includes('--render'); // redraw the chart from the stored figures
const title = `POST /v1/jobs against offered load (${label}; ${CONNECTIONS} connections, ${DURATION_S} s per step)`;
let series: Record<string, LoadPoint[]> = { 'POST /v1/jobs': [], 'bare Fastify + 1 INSERT': [] };
if (render) {
  series = JSON.parse(await readFile(join(dir, `jobs-load-${label}.json`), 'utf8'));
} else {
  const targets = await startTargets();
  try {
    await step(targets.bare, 200); // warm-up, both
    await step(targets.jobs, 200);
    for (const rate of RATES) {
      const bare = await step(targets.bare, rate);
      const jobs = await step(targets.jobs, rate);
      series['bare Fastify + 1 INSERT']!.push(bare);
      series['POST /v1/jobs']!.push(jobs);
      console.log(`offered ${rate}/s: jobs ${JSON.stringify(jobs)}, bare ${JSON.stringify(bare)}`);
    }
  } finally {
    await targets.close();
  }
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `jobs-load-${label}.json`), `${JSON.stringify(series, null, 2)}\n`);
}
await writeFile(join(dir, `jobs-load-${label}.svg`), `${loadChart(title, series)}\n`);
console.log(`wrote docs/performance/jobs-load-${label}.svg`);
