import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { loadLauncherSettings, type RunningPlatform, startPlatform } from '@hireflow/launcher';
import { FREE_PORTS } from '@hireflow/launcher/free-ports';
import { instanceNames } from '@hireflow/ops';
import { startSmtpCatcher } from '@hireflow/testing/smtp';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Redis } from 'ioredis';
import { type CheckResult, check, checkSmallTenant, expectedEffects, verdict } from './checker.ts';
import { now } from './clock.ts';
import { type FaultKind, startFaults } from './faults.ts';
import { drawPlan } from './plan.ts';
import { startOwnedEmulator, startOwnedPostgres, startOwnedRedis } from './processes.ts';
import { seededRandom } from './random.ts';
import { markdownReport, timelineSvg } from './report.ts';
import { startSampler } from './sampler.ts';
import {
  countWebhooks,
  readWebhookRows,
  registerWebhookEndpoints,
  startWebhookSinks,
  webhookProblems,
  webhookSection,
} from './webhooks.ts';
import { type OpRecord, runSmallTenant, runWorkload, type SmallTenantRecord } from './workload.ts';

export interface ChaosOptions {
  events: number;
  /** Seconds the workload takes; default: events / 25. */
  durationS?: number;
  seed: number;
  /** Mean time between faults; 0: no faults. */
  faultEveryMs: number;
  /** Where report.md, timeline.svg, result.json and services.log go. */
  outDir: string;
  broken?: string;
  /** Bound of the wait for the system to settle after the workload. */
  maxDrainMs: number;
  /** SIGSTOP of a worker, drawn in this range (above the 15 s email lease by default). */
  pauseMs?: [number, number];
  /** A long cut of Postgres or the emulator, drawn in this range (default 90–150 s, past the BullMQ retry budget). */
  longCutMs?: [number, number];
  kinds?: FaultKind[];
  /**
   * Roles the small tenant posts beside the big one (the seeded workload's
   * demo tenant), 2 fitting people each, spread over the workload; 0: one
   * tenant only. Default: events / 100, at least 3.
   */
  smallTenantRoles?: number;
  log: (line: string) => void;
  /** Aborted: the workload stops sending, the drain ends, the run is checked and torn down. */
  signal?: AbortSignal;
}

export interface ChaosRun {
  result: CheckResult;
  problems: string[];
  reportFile: string;
}

const root = resolve(import.meta.dirname, '../../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const awsClientConfig = (endpoint: string, region: string, requestTimeout: number) => ({
  region,
  endpoint,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  requestHandler: new NodeHttpHandler({
    connectionTimeout: 2000,
    requestTimeout,
    throwOnRequestTimeout: true,
  }),
});

/**
 * One chaos run: its own Postgres, Redis and emulator behind fault proxies,
 * the system started as `pnpm start` starts it, the seeded workload and
 * fault schedule, a drain, then the checker and the report.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosRun> {
  const { log } = options;
  const random = seededRandom(options.seed);
  const region = 'eu-west-1';
  const dir = await mkdtemp(join(tmpdir(), 'hireflow-chaos-'));
  await mkdir(options.outDir, { recursive: true });
  // Streamed as it comes: a run that dies still leaves what the services said.
  const serviceLog = createWriteStream(join(options.outDir, 'services.log'));
  const write = (line: string) => {
    serviceLog.write(`${line}\n`);
  };
  const cleanups: (() => Promise<unknown>)[] = [];
  const startedAt = now();
  try {
    const postgres = await startOwnedPostgres(dir, log);
    cleanups.push(() => postgres.close());
    const redis = await startOwnedRedis(dir, log);
    cleanups.push(() => redis.close());
    const emulator = await startOwnedEmulator(region, log);
    cleanups.push(() => emulator.close());
    const smtp = await startSmtpCatcher({ parse: true });
    cleanups.push(() => smtp.close());
    log(
      `own servers: postgres :${postgres.port} (proxy :${postgres.proxy.port}), redis :${redis.port} (proxy :${redis.proxy.port}), emulator :${emulator.port} (proxy :${emulator.proxy.port}), smtp :${smtp.port}`,
    );

    const settings = loadLauncherSettings({
      HIREFLOW_INSTANCE: 'chaos',
      HIREFLOW_STATE_DIR: join(dir, 'state'),
      POSTGRES_URL: `postgres://postgres@127.0.0.1:${postgres.proxy.port}/postgres`,
      REDIS_URL: `redis://127.0.0.1:${redis.proxy.port}`,
      AWS_REGION: region,
      AWS_ENDPOINT_URL: `http://127.0.0.1:${emulator.proxy.port}`,
      SMTP_URL: smtp.url,
      ...FREE_PORTS,
      LOG_LEVEL: 'warn',
      HIREFLOW_SCALING: 'on',
    });
    const names = instanceNames(settings, root);
    await mkdir(names.stateDir, { recursive: true });
    // The soak's time scale: the recovery paths (sweeps, backoff caps,
    // deferrals) keep their shape but act within minutes, not hours.
    const serviceEnv: Record<string, string | undefined> = {
      ...process.env,
      OTEL_SDK_DISABLED: 'true',
      RATE_LIMIT_MAX: '1000000',
      EMAIL_RATE_MAX: '500',
      // One tenant sends every email of the run: its daily quota would hold the rest until tomorrow.
      TENANT_DAILY_EMAIL_QUOTA: '10000000',
      EMAILS_PER_ADDRESS_PER_DAY: '10000000',
      CONTACT_CONFIRMATION_REQUIRED: 'false', // every posting names an address of its own
      EMAIL_BACKOFF_CAP_MS: '20000',
      EMAIL_SWEEP_INTERVAL_MS: '15000',
      EMAIL_SWEEP_AFTER_MS: '60000',
      DEPENDENCY_WAIT_CAP_MS: '20000',
      MATCH_SWEEP_INTERVAL_MS: '15000',
      MATCH_SWEEP_AFTER_MS: '60000',
      RESIZE_SWEEP_AFTER_MS: '60000',
      // Media removes an upload with no known owner after MEDIA_UNATTACHED_TTL_MS (1 h): a run
      // under long cuts outlasts that, and the checker expects every accepted upload's variants.
      MEDIA_UNATTACHED_TTL_MS: String(24 * 3600 * 1000),
      // Webhook retries within the run: the first after up to 2 s, none more than 20 s apart.
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_RETRY_CAP_MS: '20000',
      ...(options.broken
        ? {
            CHAOS_BROKEN: options.broken,
            NODE_OPTIONS:
              `${process.env.NODE_OPTIONS ?? ''} --import ${join(import.meta.dirname, 'broken/register.ts')}`.trim(),
          }
        : {}),
    };
    const platform: RunningPlatform = await startPlatform(settings, {
      root,
      env: serviceEnv,
      write,
      color: false,
      readyTimeoutMs: 120_000,
      // The harness restarts what dies: an API process too.
      restartApis: true,
      log,
    });
    cleanups.unshift(() => platform.stop());
    let exited: string | undefined;
    void platform.unexpectedExit.then((reason) => {
      exited = reason;
      log(`!! ${reason}`);
    });
    log(`system up in ${((now() - startedAt) / 1000).toFixed(1)} s: api ${platform.api}`);
    // Two webhook endpoints of the workload's tenant: one flaky, one slow (webhooks.ts).
    const webhookSinks = await startWebhookSinks(random.fork('webhooks'));
    cleanups.unshift(() => webhookSinks.close());
    await registerWebhookEndpoints(platform.api, platform.demo.key, webhookSinks.url);
    // The small tenant (docs/chaos.md, "Two tenants"): its key before any fault.
    const smallRoles = options.smallTenantRoles ?? Math.max(3, Math.round(options.events / 100));
    const small: SmallTenantRecord[] = [];
    const smallKey =
      smallRoles > 0 ? await platform.createApiKey('chaos-small', 'small-tenant@chaos.test') : undefined;

    // The harness reads around the proxies; the workload goes through them, as the services do.
    const sns = new SNSClient(awsClientConfig(`http://127.0.0.1:${emulator.proxy.port}`, region, 5000));
    const sqs = new SQSClient(awsClientConfig(`http://127.0.0.1:${emulator.port}`, region, 5000));
    const s3 = new S3Client({
      ...awsClientConfig(`http://127.0.0.1:${emulator.port}`, region, 10_000),
      forcePathStyle: true,
    });
    const direct = new Redis({
      port: redis.port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 2,
      lazyConnect: true,
    });
    direct.on('error', () => undefined);
    await direct.connect();
    cleanups.unshift(async () => {
      sns.destroy();
      sqs.destroy();
      s3.destroy();
      direct.disconnect();
    });

    const plan = drawPlan(random.fork('plan'), options.events);
    const records: OpRecord[] = [];
    let opsDone = 0;
    const sampler = startSampler({
      sqs,
      redis: direct,
      topologyPrefix: names.topologyPrefix,
      redisPrefix: names.redisPrefix,
      counts: () => ({ ops: opsDone, emails: smtp.emails.length }),
      intervalMs: 1000,
    });
    const faults =
      options.faultEveryMs > 0
        ? startFaults({
            random: random.fork('faults'),
            everyMs: options.faultEveryMs,
            pauseMs: options.pauseMs ?? [16_000, 24_000],
            ...(options.longCutMs ? { longCutMs: options.longCutMs } : {}),
            kinds: options.kinds,
            log,
            targets: {
              postgres,
              redis,
              emulator,
              smtp,
              wipeRedis: async () => void (await direct.flushall()),
              pids: () => platform.pids,
            },
          })
        : undefined;
    const durationS = options.durationS ?? options.events / 25;
    const workStart = now();
    const smallRun = smallKey
      ? runSmallTenant(
          {
            api: platform.api,
            apiKey: smallKey.key,
            postings: smallRoles,
            people: 2,
            everyMs: (durationS * 1000) / smallRoles,
            opDeadlineMs: 120_000,
            signal: options.signal,
            log,
          },
          small,
        )
      : Promise.resolve();
    await runWorkload(
      {
        plan,
        api: platform.api,
        apiKey: platform.demo.key,
        tenantId: platform.demo.tenantId,
        sns,
        topicPrefix: names.topologyPrefix,
        rate: options.events / durationS,
        maxInFlight: 48,
        signal: options.signal,
        opDeadlineMs: 120_000,
        log,
      },
      records,
      () => {
        opsDone++;
      },
    );
    await smallRun;
    log(`workload done in ${((now() - workStart) / 1000).toFixed(1)} s; stopping faults`);
    await faults?.stop();
    const drainStart = now();

    const sources = {
      plan,
      records,
      faults: faults?.records ?? [],
      emails: smtp.emails,
      api: platform.api,
      apiKey: platform.demo.key,
      tenantId: platform.demo.tenantId,
      ...(smallKey ? { smallTenant: small } : {}),
      databaseUrl: (service: string) => {
        const url = new URL(`postgres://postgres@127.0.0.1:${postgres.port}/`);
        url.pathname = `/${names.database(service)}`;
        return url.toString();
      },
      sqs,
      s3,
      redis: direct,
      topologyPrefix: names.topologyPrefix,
      redisPrefix: names.redisPrefix,
    };
    // Drain: until every expected email is in and every queue is empty, or the bound.
    let settled = 0;
    for (
      let round = 0;
      now() - drainStart < options.maxDrainMs && round < 10_000 && !options.signal?.aborted;
      round++
    ) {
      await sleep(3000);
      const last = sampler.last();
      const empty =
        last !== undefined &&
        [...Object.values(last.inbox), ...Object.values(last.jobs)].every((v) => v === 0);
      const expected = await expectedEffects(sources).catch(() => undefined);
      const seen = new Set(smtp.emails.map((e) => e.key));
      const smallMissing = smallKey ? checkSmallTenant(small, smtp.emails).lost : 0;
      const hooksPending =
        (await readWebhookRows(sources.databaseUrl('jobs')).catch(() => undefined))?.pending ?? -1;
      const missing = expected
        ? [...expected.emails.keys()].filter((k) => !seen.has(k)).length + smallMissing
        : -1;
      if (round % 5 === 0) {
        const busy = last ? Object.entries({ ...last.inbox, ...last.jobs }).filter(([, v]) => v !== 0) : [];
        const queues = busy.length === 0 ? 'empty' : busy.map(([k, v]) => `${k} ${v}`).join(', ');
        log(
          `drain: ${missing} expected emails missing; ${hooksPending} webhook deliveries pending; queues: ${queues}`,
        );
      }
      settled = missing === 0 && hooksPending === 0 && empty ? settled + 1 : 0;
      if (settled >= 2) break;
    }
    const drainS = Math.round((now() - drainStart) / 1000);
    await sampler.stop();
    log('checking every sink');
    const result = await check(sources);
    const left = sampler.last();
    const backlog = left
      ? Object.entries({ ...left.inbox, ...left.jobs }).filter(([, v]) => v !== 0 && v !== null)
      : [];
    const problems = verdict(result);
    const facts = await expectedEffects(sources);
    const webhooks = countWebhooks({
      arrivals: webhookSinks.arrivals,
      rows: (await readWebhookRows(sources.databaseUrl('jobs'))).rows,
      expectedFacts: [
        ...[...facts.candidates.keys()].map((id) => `candidate:${id}`),
        ...[...facts.uploads.keys()].map((id) => `upload:${id}`),
      ],
    });
    problems.push(...webhookProblems(webhooks));
    log(
      `webhooks ${webhooks.delivered}/${webhooks.expected} (lost ${webhooks.lost}, same-id copies ${webhooks.sameIdCopies}, different-id copies ${webhooks.differentIdCopies}, new-event copies ${webhooks.newEventCopies} ${JSON.stringify(webhooks.newEventCopiesByKind)}, failed answers retried ${webhooks.failedAttempts})`,
    );
    if (backlog.length > 0) {
      problems.push(
        `the drain ended at its bound with work still queued (${backlog.map(([k, v]) => `${k} ${v}`).join(', ')}): what is missing may be backlog rather than loss`,
      );
    }
    if (exited) problems.push(exited);
    const svgFile = 'timeline.svg';
    await writeFile(join(options.outDir, svgFile), timelineSvg(sampler.samples, result, workStart));
    const command = `pnpm chaos --events ${options.events} --seed ${options.seed} --fault-every ${options.faultEveryMs / 1000}${options.durationS ? ` --duration ${options.durationS}` : ''}${options.broken ? ` --broken ${options.broken}` : ''}`;
    const report = markdownReport({
      title: `Chaos run: ${options.events} events, seed ${options.seed}${options.broken ? `, broken build ${options.broken}` : ''}`,
      command,
      seed: options.seed,
      startedAt,
      durations: {
        workloadS: Math.round((drainStart - workStart) / 1000),
        drainS,
        totalS: Math.round((now() - startedAt) / 1000),
      },
      result,
      problems,
      svgFile,
    });
    const reportFile = join(options.outDir, 'report.md');
    await writeFile(reportFile, `${report}\n${webhookSection(webhooks)}`);
    await writeFile(
      join(options.outDir, 'result.json'),
      JSON.stringify({ problems, ...result, webhooks }, null, 1),
    );
    return { result, problems, reportFile };
  } finally {
    for (const cleanup of cleanups) {
      await cleanup().catch((error: Error) => log(`cleanup: ${error.message}`));
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    await new Promise((resolve) => serviceLog.end(resolve));
  }
}
