// `pnpm chaos [--events N] [--duration S] [--seed K] [--fault-every S] [--faults kind,…] [--long-cut MIN,MAX] [--small-roles N] [--broken NAME] [--out DIR]`:
// the system under a seeded workload and fault schedule, then a check of
// every sink (docs/chaos.md). Exits 1 when anything is lost or duplicated.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { FaultKind } from '../faults.ts';
import { runChaos } from '../run.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    duration: { type: 'string' },
    seed: { type: 'string', default: '1' },
    'fault-every': { type: 'string', default: '3.5' },
    broken: { type: 'string' },
    faults: { type: 'string' },
    out: { type: 'string' },
    'max-drain': { type: 'string', default: '600' },
    'long-cut': { type: 'string', default: '90,150' },
    /** Roles of the small tenant beside the big one (default events / 100, at least 3; 0: one tenant). */
    'small-roles': { type: 'string' },
  },
});
const number = (name: string, value: string | undefined, min: number, max: number) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    console.error(`--${name} must be a number from ${min} to ${max}`);
    process.exit(64);
  }
  return n;
};
/** `--long-cut MIN,MAX` seconds: how long a long cut of Postgres or the emulator lasts. */
const longCut = (value: string | undefined): [number, number] => {
  const [min, max] = (value ?? '').split(',').map((part) => number('long-cut', part, 1, 3600) * 1000);
  if (min === undefined || max === undefined || max < min) {
    console.error('--long-cut must be MIN,MAX seconds');
    process.exit(64);
  }
  return [min, max];
};
const events = number('events', values.events, 1, 1_000_000);
const seed = number('seed', values.seed, 0, 2 ** 32 - 1);
const outDir = resolve(values.out ?? `.local/chaos/${new Date().toISOString().replace(/[:.]/g, '-')}`);
const started = Date.now();
const log = (line: string) =>
  process.stdout.write(`chaos ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s | ${line}\n`);

// Ctrl-C or a SIGTERM (a test's timeout): stop sending, check what there is, tear everything down.
const abort = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the run`);
    abort.abort();
  });
}
// A reader that went away (a killed test) must not take the teardown with it.
process.stdout.on('error', () => undefined);

const run = await runChaos({
  signal: abort.signal,
  events,
  seed,
  durationS: values.duration === undefined ? undefined : number('duration', values.duration, 1, 86_400),
  faultEveryMs: number('fault-every', values['fault-every'], 0, 3600) * 1000,
  broken: values.broken,
  longCutMs: longCut(values['long-cut']),
  kinds: values.faults ? (values.faults.split(',') as FaultKind[]) : undefined,
  ...(values['small-roles'] === undefined
    ? {}
    : { smallTenantRoles: number('small-roles', values['small-roles'], 0, 10_000) }),
  outDir,
  maxDrainMs: number('max-drain', values['max-drain'], 10, 86_400) * 1000,
  log,
});
const { result, problems } = run;
log(
  `emails ${result.emails.seen}/${result.emails.expected} (lost ${result.emails.lost}, same-id copies ${result.emails.sameIdCopies}, different-id copies ${result.emails.differentIdCopies}); matches ${result.matches.seen}/${result.matches.expected} (lost ${result.matches.lost}, dup ${result.matches.duplicated}); variants lost ${result.variants.lost}, dup ${result.variants.duplicated}; postings dup ${result.postings.duplicated}; dead letters ${result.deadLetters.length} (${result.unexpectedDeadLetters} not poison); faults ${result.faults.length}`,
);
log(
  problems.length === 0
    ? `PASS: report in ${run.reportFile}`
    : `FAIL: ${problems.join('; ')} (report in ${run.reportFile})`,
);
if (result.smallTenant) {
  const small = result.smallTenant;
  log(
    `small tenant: ${small.roles.posted}/${small.roles.planned} roles; role → match emails p50 ${(small.latencyMs.p50 / 1000).toFixed(2)} s, p99 ${(small.latencyMs.p99 / 1000).toFixed(2)} s (${small.latencyMs.count} roles); emails ${small.emails.seen}/${small.emails.expected}, lost ${small.lost}, different-id copies ${small.differentIdCopies}`,
  );
}
process.exit(problems.length === 0 ? 0 : 1);
