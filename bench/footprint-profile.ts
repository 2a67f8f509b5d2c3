// Where each role's start goes (issue 31, fourth pass): every service process
// in each role, as the launcher and the image run it, against a platform of
// this script's own (emulator and topology, a database per service, a Redis
// prefix, an OTLP sink), started once to migrate, then once more under
// `--cpu-prof` and `--heap-prof` and the module recorder; stopped 3 s after
// ready. Prints per role the packages by CPU time of the start (the
// profile's self time, a module's load included), by V8 heap still alive
// when the process stopped (allocation sampling), and by modules loaded;
// then, from a third start without profilers, RSS (anonymous and file-backed)
// and V8 heap 3 s after ready and once a full garbage collection has run (what
// a start leaves as garbage), beside the baseline of issue 31 (a process
// importing fastify, pg and ioredis) started just before it: the ratio.
//   node bench/footprint-profile.ts [jobs:api jobs:worker …]
// PROFILE_MEMORY_ONLY=1 skips the profiled start (no CPU, heap or module
// tables) and takes PROFILE_ROUNDS (default 1) pairs of baseline and role:
// RSS only, which the machine's load does not change, for a lever's before
// and after. PROFILE_NODE_ARGS adds node arguments to every start of a role
// (a V8 flag, a preload). The CPU tables measure time: run them on a quiet
// machine.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { topology } from '@hireflow/contracts';
import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { startEmulator } from '@hireflow/emulator';
import { provisionTopology } from '@hireflow/ops';
import { createSnsClient, createSqsClient } from '@hireflow/runtime';
import { serviceNodeArgs, serviceProcessEnv } from '@hireflow/runtime/process';
import { createS3Client } from '@hireflow/runtime/s3';
import { moduleRecorder } from '@hireflow/testing/modules';
import { baseline, benchServiceEnv, root } from './footprint-processes.ts';
import { startOtlpSink } from './tracing-system.ts';

const REGION = 'eu-west-1';
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const IDLE_MS = 3000;
const TOP = Number(process.env.PROFILE_TOP ?? 12);
const ALL = [
  'jobs:api',
  'jobs:worker',
  'matching:api',
  'matching:worker',
  'notifications:api',
  'notifications:worker',
  'media:api',
  'media:worker',
];
const roles = process.argv.length > 2 ? process.argv.slice(2) : ALL;
const MEMORY_ONLY = process.env.PROFILE_MEMORY_ONLY === '1';
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 1);

/** The package a script URL belongs to: an npm package, a workspace package, Node's own, or V8's. */
function packageOf(url: string): string {
  if (!url) return '(V8: program, GC, native)';
  if (url.startsWith('node:')) return '(node internals)';
  const at = url.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const [scope, name] = url.slice(at + '/node_modules/'.length).split('/');
    return scope?.startsWith('@') && name ? `${scope}/${name}` : (scope ?? url);
  }
  const local = /\/(libs|services|tools)\/([^/]+)\//.exec(url);
  if (local) return `@hireflow/${local[2]}`;
  if (url.startsWith('wasm://')) return '(wasm)';
  return url.length > 60 ? `…${url.slice(-60)}` : url;
}

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: CpuNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time per package, in ms, up to `untilUs` (µs since the profile's start). */
function cpuByPackage(profile: CpuProfile, untilUs: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  let t = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (t > untilUs) return;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    const key =
      name === '(idle)'
        ? '(idle)'
        : name === '(garbage collector)'
          ? '(V8: GC)'
          : packageOf(node.callFrame.url);
    out.set(key, (out.get(key) ?? 0) + dt / 1000);
  });
  return out;
}

interface HeapNode {
  callFrame: { url: string };
  selfSize: number;
  children: HeapNode[];
}

function heapByPackage(head: HeapNode): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (node: HeapNode) => {
    const key = packageOf(node.callFrame.url);
    out.set(key, (out.get(key) ?? 0) + node.selfSize / 1e6);
    for (const child of node.children) walk(child);
  };
  walk(head);
  return out;
}

function top(map: Map<string, number>, n: number, unit: string): string[] {
  const total = [...map.values()].reduce((a, b) => a + b, 0);
  return [
    `  total ${total.toFixed(1)} ${unit}`,
    ...[...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, v]) =>
          `  ${v.toFixed(1).padStart(8)} ${unit}  ${((v / total) * 100).toFixed(0).padStart(3)} %  ${k}`,
      ),
  ];
}

/**
 * A preload that collects garbage on SIGUSR2 and says what the heap was before
 * and after. It reaches `gc` only then (a flag such as `--expose-gc` would key
 * the compile cache apart, so the measured start would strip and compile
 * every file again; the `vm` context that reaches it costs memory, but only
 * after RSS was read).
 */
const GC_PROBE = `import v8 from 'node:v8'; import vm from 'node:vm';
process.on('SIGUSR2', () => { const before = process.memoryUsage();
  v8.setFlagsFromString('--expose-gc'); const gc = vm.runInNewContext('gc'); gc(); gc();
  process.send?.({ type: 'gc', before, after: process.memoryUsage() }); });`;

interface Usage {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

async function run(
  args: string[],
  env: Record<string, string>,
  probeGc = false,
): Promise<{
  readyMs: number;
  rssMb: number;
  split: Awaited<ReturnType<typeof rssSplit>>;
  gc?: { before: Usage; after: Usage; rssMb: number };
}> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
  });
  const exited = new Promise<unknown>((done) => child.once('exit', (code, signal) => done(code ?? signal)));
  const readyMs = await new Promise<number>((ready, fail) => {
    child.on(
      'message',
      (m: { type?: string }) => m?.type === 'started' && ready(performance.now() - started),
    );
    exited.then((code) => fail(new Error(`exited (${code}) before ready:\n${stderr}`)));
  });
  await delay(IDLE_MS);
  const split = await rssSplit(child.pid!);
  const rssMb = split.rss;
  let gc: { before: Usage; after: Usage; rssMb: number } | undefined;
  if (probeGc) {
    const said = new Promise<{ before: Usage; after: Usage }>((done) =>
      child.on('message', (m: { type?: string; before: Usage; after: Usage }) => m?.type === 'gc' && done(m)),
    );
    child.kill('SIGUSR2');
    const { before, after } = await said;
    await delay(1000);
    gc = { before, after, rssMb: await rssOf(child.pid!) };
  }
  child.kill('SIGTERM');
  await exited;
  return { readyMs, rssMb, split, ...(gc ? { gc } : {}) };
}

async function rssOf(pid: number): Promise<number> {
  return (await rssSplit(pid)).rss;
}

/** VmRSS and its parts (anonymous, file-backed, shared memory) from /proc/<pid>/status, in MB. */
async function rssSplit(pid: number): Promise<{ rss: number; anon: number; file: number; shmem: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    (Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024) / 1e6;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem') };
}

/** The profiled start: CPU to ready, V8 heap alive at exit and modules loaded, each by package. */
async function profile(
  service: string,
  r: string,
  plain: string[],
  env: Record<string, string>,
): Promise<void> {
  const out = join(dir, `${service}-${r}`);
  // PROFILE_MODULES_DIR keeps each role's list of loaded modules (one URL a line).
  const modulesFile = join(process.env.PROFILE_MODULES_DIR ?? dir, `${service}-${r}.modules`);
  // The V8 flags first (the services' own or the ones PROFILE_NODE_ARGS put in their place).
  const flags = plain.filter((arg) => arg.startsWith('--') && arg !== '--import' && !arg.endsWith('.ts'));
  const profiled = [
    ...flags,
    '--cpu-prof',
    `--cpu-prof-dir=${out}`,
    '--cpu-prof-interval=500',
    '--heap-prof',
    `--heap-prof-dir=${out}`,
    '--heap-prof-interval=4096',
    '--import',
    moduleRecorder,
    ...plain.filter((arg) => !flags.includes(arg)),
  ];
  const { readyMs, rssMb } = await run(profiled, { ...env, LOADED_MODULES_FILE: modulesFile });
  const files = await readdir(out);
  const cpu = JSON.parse(
    await readFile(join(out, files.find((f) => f.endsWith('.cpuprofile'))!), 'utf8'),
  ) as CpuProfile;
  const heap = JSON.parse(
    await readFile(join(out, files.find((f) => f.endsWith('.heapprofile'))!), 'utf8'),
  ) as {
    head: HeapNode;
  };
  const modules = (await readFile(modulesFile, 'utf8')).split('\n').filter(Boolean);
  const moduleCounts = new Map<string, number>();
  for (const m of modules) moduleCounts.set(packageOf(m), (moduleCounts.get(packageOf(m)) ?? 0) + 1);
  // The profile runs from the process's start; ready came ~readyMs after spawn.
  const untilReady = readyMs * 1000;
  const byPackage = cpuByPackage(cpu, untilReady);
  byPackage.delete('(idle)');
  console.log(
    `\n## ${service} ${r}: ready in ${Math.round(readyMs)} ms (profiled), RSS ${rssMb.toFixed(1)} MB 3 s later (profilers on), ${modules.length} modules`,
  );
  console.log('CPU from spawn to ready, by package (self time, ms):');
  console.log(top(byPackage, TOP, 'ms').join('\n'));
  console.log('V8 heap alive at exit, by the package that allocated it (sampled, MB):');
  console.log(top(heapByPackage(heap.head), TOP, 'MB').join('\n'));
  console.log('Modules loaded, by package:');
  console.log(top(moduleCounts, TOP, 'files').join('\n'));
}

const suffix = randomBytes(4).toString('hex');
const emulator = await startEmulator({ region: REGION });
const sink = await startOtlpSink();
const services = [...new Set(roles.map((r) => r.split(':')[0]!))];
const databases = new Map(services.map((s) => [s, `${SERVER}/hfbench_fpp_${s}_${suffix}`]));
const dir = await mkdtemp(join(tmpdir(), 'hireflow-fp-profile-'));
const gcProbe = join(dir, 'gc-probe.mjs');
await writeFile(gcProbe, GC_PROBE);
try {
  const aws = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
  const clients = { sns: createSnsClient(aws), sqs: createSqsClient(aws), s3: createS3Client(aws) };
  const provisioned = await provisionTopology(topology, { ...clients, prefix: `fpp-${suffix}-` });
  for (const client of Object.values(clients)) client.destroy();
  for (const url of databases.values()) await ensureDatabase(url);
  for (const role of roles) {
    const [service, r] = role.split(':') as [string, string];
    const env = {
      ...serviceProcessEnv(root),
      ...benchServiceEnv({
        service,
        region: REGION,
        emulator: emulator.endpoint,
        otlp: sink.endpoint,
        database: databases.get(service)!,
        redisPrefix: `bench:fpp${suffix}:${service}`,
        topologyPrefix: provisioned.prefix,
      }),
      ROLE: r,
    };
    // PROFILE_NODE_ARGS='--max-semi-space-size=1': node arguments added before the
    // role's own, in every start (its warm-up too: V8 flags key the compile cache).
    const extra = (process.env.PROFILE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    // A flag given here replaces the services' own value of it (`--max-semi-space-size=1`).
    const nameOf = (arg: string) => arg.split('=')[0];
    const plain = [
      ...extra,
      ...serviceNodeArgs(root, service).filter((arg) => !extra.some((e) => nameOf(e) === nameOf(arg))),
    ];
    // Unmeasured: migrates the database, fills the compile cache.
    await run(plain, env);
    if (!MEMORY_ONLY) await profile(service, r, plain, env);
    if (MEMORY_ONLY) console.log(`\n## ${service} ${r}`);
    for (let round = 1; round <= ROUNDS; round++) {
      // The baseline right before the role, as the footprint bench pairs them.
      const base = await run(baseline.args, {});
      const probed = await run(['--import', gcProbe, ...plain], env, true);
      const mb = (n: number) => (n / 1e6).toFixed(1);
      const g = probed.gc!;
      const p = probed.split;
      console.log(
        `Without profilers${ROUNDS > 1 ? ` (round ${round})` : ''}: RSS ${p.rss.toFixed(1)} MB 3 s after ready (anonymous ${p.anon.toFixed(1)}, file ${p.file.toFixed(1)}, shmem ${p.shmem.toFixed(1)}; V8 heap used ${mb(g.before.heapUsed)} of ${mb(g.before.heapTotal)} MB, external ${mb(g.before.external)} MB); after a full GC: RSS ${g.rssMb.toFixed(1)} MB (heap used ${mb(g.after.heapUsed)} of ${mb(g.after.heapTotal)} MB)`,
      );
      console.log(
        `  baseline (fastify+pg+ioredis): RSS ${base.rssMb.toFixed(1)} MB (anonymous ${base.split.anon.toFixed(1)}, file ${base.split.file.toFixed(1)}); ${service} ${r} ÷ baseline: ${(p.rss / base.rssMb).toFixed(2)}×`,
      );
    }
  }
} finally {
  await sink.close();
  await emulator.stop();
  for (const url of databases.values()) await dropDatabase(url).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
