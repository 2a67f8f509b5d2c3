// The "production shape" of `pnpm bench messaging`: the emulator in a process
// of its own (AWS is not in the producer's process), the relay and the
// consumer in another (bench/messaging-pipeline.ts; in production they run in
// the producing service's worker role and in the consuming service), the
// producers in the bench's process. The in-process rows stay: they are the
// same code on one thread, where every phase's CPU adds up.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Topology } from '@hireflow/contracts';
import { provisionTopology } from '@hireflow/ops';
import { freePort } from '@hireflow/testing';
import type { PipelineCommand, PipelineReply, PipelineSetup } from './messaging-pipeline.ts';

const READY_TIMEOUT_MS = 60_000;

export interface SplitPipeline {
  sqs: SQSClient;
  /** A queue of the emulator process's own, for the SQS-alone baseline. */
  baselineQueueUrl: string;
  /**
   * Starts a phase in the pipeline process (its relay first, when asked) and
   * resolves once it is ready, with a promise of the phase's end: `count`
   * distinct events seen by its handler.
   */
  phase(count: number, startRelay: boolean): Promise<{ done: Promise<void> }>;
  stopRelay(): Promise<void>;
  /** CPU time (ms, user + system) each child has used so far, from /proc (Linux). */
  cpuMs(): { pipeline: number; emulator: number };
  close(): Promise<void>;
}

export async function startSplitPipeline(options: {
  databaseUrl: string;
  region: string;
  topology: Topology;
}): Promise<SplitPipeline> {
  const emulator = await startEmulatorProcess(options.region);
  let pipeline: ChildProcess | undefined;
  let sns: SNSClient | undefined;
  let sqs: SQSClient | undefined;
  try {
    sns = new SNSClient(benchClientConfig(options.region, emulator.endpoint));
    sqs = new SQSClient(benchClientConfig(options.region, emulator.endpoint));
    const topo = await provisionTopology(options.topology, { sns, sqs, prefix: 'bench-split-' });
    const baseline = await provisionTopology(options.topology, { sns, sqs, prefix: 'bench-split-base-' });
    const setup: PipelineSetup = {
      databaseUrl: options.databaseUrl,
      region: options.region,
      endpoint: emulator.endpoint,
      topicArn: topo.topics['jobs-events']!.arn,
      queue: topo.queues.inbox!,
    };
    const child = fork(new URL('./messaging-pipeline.ts', import.meta.url), {
      env: { ...process.env, BENCH_PIPELINE_SETUP: JSON.stringify(setup) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    pipeline = child;
    const replies = replyQueue(child);
    await withTimeout(replies.next('ready'), READY_TIMEOUT_MS, 'pipeline process ready');
    const command = (message: PipelineCommand) => child.send(message);
    const clients = { sns, sqs };
    return {
      sqs,
      baselineQueueUrl: baseline.queues.inbox!.url,
      async phase(count, startRelay) {
        const ready = replies.next('ready');
        const done = replies.next('done');
        command({ cmd: 'phase', count, startRelay });
        await ready;
        return { done: done.then(() => undefined) };
      },
      async stopRelay() {
        const stopped = replies.next('stopped');
        command({ cmd: 'stop-relay' });
        await stopped;
      },
      cpuMs: () => ({ pipeline: processCpuMs(child.pid), emulator: processCpuMs(emulator.child.pid) }),
      async close() {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        command({ cmd: 'close' });
        await withTimeout(exited, 30_000, 'pipeline process exit').catch(() => child.kill('SIGKILL'));
        clients.sns.destroy();
        clients.sqs.destroy();
        await emulator.stop();
      },
    };
  } catch (error) {
    pipeline?.kill('SIGKILL');
    sns?.destroy();
    sqs?.destroy();
    await emulator.stop();
    throw error;
  }
}

/**
 * The clients of the production shape (this process's and the pipeline
 * process's): the services' settings (libs/runtime/src/aws.ts) but a connect
 * timeout of 30 s, not 3 s. At a load average of 40 on two cores a process
 * of its own may not accept a connection within 3 s, and a bench run died of
 * it; a service retries that call, the bench would not.
 */
export function benchClientConfig(region: string, endpoint: string) {
  return {
    region,
    endpoint,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    requestHandler: { connectionTimeout: 30_000, requestTimeout: 30_000, throwOnRequestTimeout: true },
  };
}

/** The emulator's own CLI in a child process, on a free loopback port. */
async function startEmulatorProcess(
  region: string,
): Promise<{ endpoint: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const cli = new URL(import.meta.resolve('@hireflow/emulator/cli'));
  const child = spawn(process.execPath, [cli.pathname], {
    env: { ...process.env, EMULATOR_PORT: String(port), EMULATOR_HOST: '127.0.0.1', AWS_REGION: region },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await withTimeout(exited, 10_000, 'emulator exit').catch(() => child.kill('SIGKILL'));
  };
  const listening = new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code} before listening`)));
  });
  try {
    await withTimeout(listening, READY_TIMEOUT_MS, 'emulator listening');
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: `http://127.0.0.1:${port}`, child, stop };
}

/** Replies of the pipeline process, each handed to the first waiter for its kind. */
function replyQueue(child: ChildProcess) {
  const waiters = new Map<PipelineReply['kind'], ((r: PipelineReply) => void)[]>();
  const failures: ((e: Error) => void)[] = [];
  child.on('message', (reply: PipelineReply) => waiters.get(reply.kind)?.shift()?.(reply));
  child.once('exit', (code) => {
    for (const fail of failures) fail(new Error(`pipeline process exited with ${code}`));
  });
  return {
    next(kind: PipelineReply['kind']): Promise<PipelineReply> {
      return new Promise((resolve, reject) => {
        waiters.set(kind, [...(waiters.get(kind) ?? []), resolve]);
        failures.push(reject);
      });
    },
  };
}

/** A process's CPU time (user + system, ms) from /proc/<pid>/stat; NaN where unreadable. */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: state is field 3, utime 14, stime 15 (clock ticks, USER_HZ 100).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
