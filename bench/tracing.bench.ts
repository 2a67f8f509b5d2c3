// The cost of tracing on the main story, jobs → matching → notifications:
// two whole systems as `pnpm start` runs them (four service processes each),
// one with every span exported (OTLP/HTTP to a sink, the batch processor's
// defaults), one with the OpenTelemetry SDK disabled. Each round posts a
// batch of roles at once to one system; each role is matched against the
// same candidates and ends in an email per match and the recruiter's summary.
// A role is done when all its emails are accepted by the system's SMTP server.
// Rounds alternate between the systems (on, off, off, on, …) after a warm-up.
import { setTimeout as delay } from 'node:timers/promises';
import { demoCast } from '@hireflow/demo';
import { type BenchReport, percentile, round } from './report.ts';
import { type BenchSystem, type OtlpSink, startOtlpSink, startSystem } from './tracing-system.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const ROLES_PER_ROUND = Number(process.env.BENCH_ROLES ?? 6);
const TIMEOUT_MS = 120_000;

interface Sample {
  roles: number;
  emails: number;
  seconds: number;
  /** POST → the recruiter's summary accepted, per role (ms). */
  latencies: number[];
}

const now = () => performance.timeOrigin + performance.now();

async function post(system: BenchSystem, path: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(`${system.jobs}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${system.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 202)
    throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string };
}

async function accepted(system: BenchSystem, count: number): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (system.smtp.emails.length < count) {
    if (Date.now() > deadline)
      throw new Error(`only ${system.smtp.emails.length} of ${count} emails accepted`);
    await delay(5);
  }
}

/** Two copies of the demo's candidates (six fit the role), registered and welcomed. */
async function registerPool(system: BenchSystem): Promise<void> {
  const candidates = ['a', 'b'].flatMap((copy) => demoCast(`pool${copy}`).candidates);
  const before = system.smtp.emails.length;
  for (const candidate of candidates) await post(system, '/v1/candidates', candidate);
  await accepted(system, before + candidates.length);
}

/** Posts `count` roles at once and waits for every email they cause; `perRole` emails each. */
async function postRoles(system: BenchSystem, tag: string, count: number, perRole: number): Promise<Sample> {
  const before = system.smtp.emails.length;
  const started = now();
  const roles = Array.from({ length: count }, (_, i) => demoCast(`${tag}r${i}`).role);
  const postedAt = new Map<string, number>();
  await Promise.all(
    roles.map(async (role) => {
      postedAt.set(role.contactEmail, now());
      await post(system, '/v1/jobs', role);
    }),
  );
  await accepted(system, before + count * perRole);
  const seconds = (now() - started) / 1000;
  const summaries = system.smtp.emails.slice(before).filter((e) => postedAt.has(e.envelopeTo[0] ?? ''));
  return {
    roles: count,
    emails: count * perRole,
    seconds,
    latencies: summaries.map((e) => e.acceptedAt - postedAt.get(e.envelopeTo[0]!)!),
  };
}

/** Emails one role causes here: one per match, and the recruiter's summary. */
async function emailsPerRole(system: BenchSystem): Promise<number> {
  const before = system.smtp.emails.length;
  const { id } = await post(system, '/v1/jobs', demoCast('probe').role);
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    const response = await fetch(`${system.jobs}/v1/jobs/${id}`, {
      headers: { authorization: `Bearer ${system.key}` },
    });
    const posting = (await response.json()) as { status: string; matchCount: number | null };
    if (posting.status === 'matched') {
      const emails = (posting.matchCount ?? 0) + 1;
      await accepted(system, before + emails);
      return emails;
    }
    await delay(50);
  }
  throw new Error('the probe role was not matched in time');
}

export default async function tracingBench(): Promise<BenchReport> {
  const sink = await startOtlpSink();
  const systems: BenchSystem[] = [];
  try {
    // One at a time: two systems booting at once on a small machine time out.
    systems.push(await startSystem(true, sink));
    systems.push(await startSystem(false, sink));
    return await measure(systems as [BenchSystem, BenchSystem], sink);
  } finally {
    for (const system of systems) await system.close();
    await sink.close();
  }
}

async function measure([on, off]: [BenchSystem, BenchSystem], sink: OtlpSink): Promise<BenchReport> {
  for (const system of [on, off]) await registerPool(system);
  const perRole = await emailsPerRole(on);
  const offPerRole = await emailsPerRole(off);
  if (perRole !== offPerRole) throw new Error(`a role causes ${perRole} emails traced, ${offPerRole} not`);
  for (const system of [on, off])
    await postRoles(system, `${system.traced ? 'on' : 'off'}w`, ROLES_PER_ROUND, perRole);

  const samples = new Map<BenchSystem, Sample[]>([
    [on, []],
    [off, []],
  ]);
  const pairRatios: number[] = [];
  const bytesBefore = sink.bytes;
  const cpuBefore = new Map([
    [on, await on.cpuSeconds()],
    [off, await off.cpuSeconds()],
  ]);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [on, off] : [off, on];
    for (const system of order) {
      const tag = `${system.traced ? 'on' : 'off'}${r}`;
      samples.get(system)!.push(await postRoles(system, tag, ROLES_PER_ROUND, perRole));
    }
    pairRatios.push(samples.get(off)![r]!.seconds / samples.get(on)![r]!.seconds);
  }
  // CPU over the same wall time for both, plus the batch processor's last export (every 5 s).
  await delay(6000);
  const cpu = new Map([
    [on, (await on.cpuSeconds()) - cpuBefore.get(on)!],
    [off, (await off.cpuSeconds()) - cpuBefore.get(off)!],
  ]);
  const exported = sink.bytes - bytesBefore;
  if (exported === 0) throw new Error('the traced system exported no spans');

  const sum = (system: BenchSystem, pick: (s: Sample) => number) =>
    samples.get(system)!.reduce((total, s) => total + pick(s), 0);
  const roles = (system: BenchSystem) => sum(system, (s) => s.roles);
  const rolesPerSecond = (system: BenchSystem) => roles(system) / sum(system, (s) => s.seconds);
  const cpuPerRole = (system: BenchSystem) => (cpu.get(system)! * 1000) / roles(system);
  const row = (system: BenchSystem, label: string) => {
    const latencies = samples.get(system)!.flatMap((s) => s.latencies);
    return {
      variant: label,
      'roles/s': round(rolesPerSecond(system), 2),
      'emails/s': round(sum(system, (s) => s.emails) / sum(system, (s) => s.seconds), 1),
      'role → summary p50 ms': round(percentile(latencies, 50), 0),
      'role → summary p99 ms': round(percentile(latencies, 99), 0),
      'service CPU ms per role': round(cpuPerRole(system), 0),
      'OTLP KiB per role': system.traced ? round(exported / 1024 / roles(system), 1) : 0,
    };
  };
  return {
    description:
      `Two systems as pnpm start runs them (four service processes each, one emulator each), one ` +
      'exporting every span over OTLP/HTTP protobuf (batch processor defaults) to a sink, one with the ' +
      `SDK disabled; ${ROUNDS} interleaved rounds per system after a warm-up, each posting ` +
      `${ROLES_PER_ROUND} roles at once against the same candidates (${perRole - 1} matches each): ` +
      'POST /v1/jobs → job.posted.v1 → matching (embed, compute, outbox) → match.found.v1 and ' +
      `job.matched.v1 → notifications → ${perRole} emails per role accepted by SMTP. Throughput ratio: ` +
      'the median over round pairs (one round of each, back to back), robust to load from elsewhere; ' +
      "service CPU: the four processes' user + system time over the whole measured period.",
    rows: [row(off, 'tracing off (baseline)'), row(on, 'tracing on')],
    ratios: {
      'tracing on ÷ off (roles/s, median of round pairs)': percentile(pairRatios, 50),
      'tracing on ÷ off (roles/s, all rounds)': rolesPerSecond(on) / rolesPerSecond(off),
      'tracing off ÷ on (service CPU per role)': cpuPerRole(off) / cpuPerRole(on),
    },
  };
}
