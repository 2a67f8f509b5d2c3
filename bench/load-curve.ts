// `pnpm bench:chart [label]`: throughput and p99 of POST /v1/jobs and of the
// bare Fastify + INSERT route against offered load (autocannon at a fixed
// overall rate, 127.0.0.1 only), interleaved step by step. Writes the figures
// to docs/performance/jobs-load-<label>.json and the chart to
// docs/performance/jobs-load-<label>.svg (label default: "after").
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { type LoadPoint, loadChart } from './chart.ts';
import { jobBody, startTargets } from './jobs-targets.ts';

const label = process.argv[2] ?? 'after';
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
    body: jobBody,
    connections: CONNECTIONS,
    overallRate: rate,
    duration: DURATION_S,
    workers: 1,
  });
  return { offered: rate, achieved: result['2xx'] / DURATION_S, p99: result.latency.p99 };
}

const targets = await startTargets();
const series: Record<string, LoadPoint[]> = { 'POST /v1/jobs': [], 'bare Fastify + 1 INSERT': [] };
try {
  await step(targets.bare, 200); // warm-up, both
  await step(targets.jobs, 200);
  for (const rate of RATES) {
    series['bare Fastify + 1 INSERT']!.push(await step(targets.bare, rate));
    series['POST /v1/jobs']!.push(await step(targets.jobs, rate));
    console.log(
      rate,
      JSON.stringify(series['POST /v1/jobs']!.at(-1)),
      JSON.stringify(series['bare Fastify + 1 INSERT']!.at(-1)),
    );
  }
} finally {
  await targets.close();
}
const dir = join(import.meta.dirname, '..', 'docs', 'performance');
await mkdir(dir, { recursive: true });
await writeFile(join(dir, `jobs-load-${label}.json`), `${JSON.stringify(series, null, 2)}\n`);
await writeFile(
  join(dir, `jobs-load-${label}.svg`),
  loadChart(
    `POST /v1/jobs against offered load (${label}; ${CONNECTIONS} connections, ${DURATION_S} s per step)`,
    series,
  ),
);
console.log(`wrote docs/performance/jobs-load-${label}.{json,svg}`);
