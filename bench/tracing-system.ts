// A whole Hireflow system for `pnpm bench tracing`: what `pnpm start` runs
// (emulator, topology, databases, the four services as processes), with its
// own names and free ports, its own SMTP server, and tracing on (spans
// exported to an OTLP sink) or off (OTEL_SDK_DISABLED in every service).
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SERVICE_NAMES } from '@hireflow/contracts';
import { dropDatabase } from '@hireflow/db';
import { loadLauncherSettings, startPlatform } from '@hireflow/launcher';
import { FREE_PORTS } from '@hireflow/launcher/free-ports';
import { instanceNames } from '@hireflow/ops';
import { readBody, startLocalServer } from '@hireflow/testing';
import { type SmtpCatcher, startSmtpCatcher } from '@hireflow/testing/smtp';

const root = resolve(import.meta.dirname, '..');

export interface OtlpSink {
  endpoint: string;
  requests: number;
  bytes: number;
  close(): Promise<void>;
}

/** Takes OTLP/HTTP exports and drops them: a collector elsewhere, as the services see it. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const sink = { requests: 0, bytes: 0 };
  const server = await startLocalServer(async (req, res) => {
    sink.bytes += (await readBody(req)).length;
    sink.requests++;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
  });
  return Object.assign(sink, { endpoint: server.url, close: server.close });
}

export interface BenchSystem {
  traced: boolean;
  jobs: string;
  key: string;
  smtp: SmtpCatcher;
  /** CPU seconds the four service processes have used so far (user + system). */
  cpuSeconds(): Promise<number>;
  close(): Promise<void>;
}

/** A process's user + system CPU time in seconds, from /proc (Linux). */
async function processCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** USER_HZ: 100 on Linux. */
const CLOCK_TICKS = 100;

export async function startSystem(traced: boolean, sink: OtlpSink): Promise<BenchSystem> {
  const instance = `bt${randomBytes(3).toString('hex')}${traced ? 'on' : 'off'}`;
  const smtp = await startSmtpCatcher({ parse: false });
  const env: Record<string, string | undefined> = {
    ...process.env,
    HIREFLOW_INSTANCE: instance,
    HIREFLOW_STATE_DIR: '.local/bench',
    ...FREE_PORTS,
    // One worker per service in both systems, whatever the backlog: the same work, traced or not.
    HIREFLOW_SCALING: 'off',
    SMTP_URL: smtp.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
    LOG_LEVEL: 'warn',
    // The bench sends far more than a tenant's daily quota of email.
    TENANT_DAILY_EMAIL_QUOTA: '10000000',
    EMAILS_PER_ADDRESS_PER_DAY: '10000000',
    CONTACT_CONFIRMATION_REQUIRED: 'false', // every posting names an address of its own
    RATE_LIMIT_MAX: '1000000',
  };
  if (traced) delete env.OTEL_SDK_DISABLED;
  else env.OTEL_SDK_DISABLED = 'true';
  const settings = loadLauncherSettings(env);
  const names = instanceNames(settings, root);
  const lines: string[] = [];
  const write = (line: string) => lines.push(line) > 200 && lines.shift();
  const dropAll = async () => {
    await smtp.close();
    for (const service of SERVICE_NAMES)
      await dropDatabase(names.databaseUrl(service)).catch(() => undefined);
    await rm(names.stateDir, { recursive: true, force: true });
  };
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  try {
    platform = await startPlatform(settings, { root, env, write, color: false });
  } catch (error) {
    await dropAll();
    throw new Error(`${(error as Error).message}\n${lines.join('\n')}`);
  }
  return {
    traced,
    jobs: platform.services.jobs!,
    key: platform.demo.key,
    smtp,
    async cpuSeconds() {
      const each = await Promise.all(Object.values(platform.pids).map(processCpuSeconds));
      return each.reduce((a, b) => a + b, 0);
    },
    async close() {
      await platform.stop();
      await dropAll();
    },
  };
}
