import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '@hireflow/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, type Launcher, launch as launchInstance, printedUrls, root } from './launcher.ts';

const instance = `boot${randomBytes(3).toString('hex')}`;
const stateDir = `.local/test-${instance}`;
const launch = (extraEnv: Record<string, string> = {}) => launchInstance(instance, stateDir, extraEnv);

interface ExportedSpan {
  service: string;
  traceId: string;
  name: string;
}

/** A minimal OTLP/HTTP (JSON) trace receiver: what the services export. */
async function startOtlpReceiver() {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')
            ?.value?.stringValue;
          for (const ss of rs.scopeSpans ?? []) {
            for (const span of ss.spans ?? [])
              spans.push({ service, traceId: span.traceId, name: span.name });
          }
        }
      } catch {
        // not JSON: ignore
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, spans, close: () => new Promise((r) => server.close(r)) };
}

describe('pnpm start (the launcher)', () => {
  let launcher: Launcher | undefined;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;

  afterAll(async () => {
    await cleanUp(launcher, instance, stateDir);
    await otlp?.close();
  });

  it('brings four services to ready, refuses a second start, and stops each child with exit 0 on SIGTERM', async () => {
    otlp = await startOtlpReceiver();
    launcher = launch({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    await launcher.waitForLine((l) => l.startsWith('Ctrl-C stops everything'), 90_000);

    const { urls, adminUrls, mailUi } = printedUrls(launcher.lines);
    expect(Object.keys(urls).sort()).toEqual(['jobs', 'matching', 'media', 'notifications']);
    expect(Object.keys(adminUrls).sort()).toEqual(['jobs', 'matching', 'media', 'notifications']);
    for (const url of Object.values(urls)) {
      const res = await fetch(`${url}/health/ready`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { checks: unknown }).checks).toEqual({
        postgres: 'ok',
        redis: 'ok',
        sqs: 'ok',
      });
    }
    expect(mailUi).toBeDefined();
    expect((await fetch(`${mailUi}/api/messages`)).status).toBe(200);

    // The demo tenant's key works, and the 202's traceId names a trace the jobs process exported.
    const demo = JSON.parse(await readFile(join(root, stateDir, instance, 'demo-api-key.json'), 'utf8'));
    const posted = await fetch(`${urls.jobs}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Boot', description: 'd', skills: [], location: 'x', remote: false }),
    });
    expect(posted.status).toBe(202);
    const { traceId } = (await posted.json()) as { traceId: string };
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await waitFor(() => otlp!.spans.some((s) => s.service === 'jobs' && s.traceId === traceId), {
      timeoutMs: 20_000,
      message: `no span of trace ${traceId} from jobs`,
    });

    // One trace across every hop: the candidate's 202 traceId reaches the
    // notifications process (SNS → SQS → handler → BullMQ → SMTP).
    const registered = await fetch(`${urls.jobs}/v1/candidates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Boot',
        email: 'boot@example.test',
        headline: '',
        skills: [],
        location: '',
      }),
    });
    const candidateTrace = ((await registered.json()) as { traceId: string }).traceId;
    await waitFor(
      () =>
        otlp!.spans.some(
          (s) => s.service === 'notifications' && s.traceId === candidateTrace && s.name === 'smtp send',
        ),
      { timeoutMs: 30_000, message: `no smtp send span of trace ${candidateTrace} from notifications` },
    );

    // The notification log is read on the notifications admin port, never on its service port.
    const internal = '/internal/notifications?recipient=boot%40example.test';
    expect((await fetch(`${urls.notifications}${internal}`)).status).toBe(404);
    // The send is recorded right after the SMTP accept the span above saw.
    const log = await waitFor(async () => {
      const page = (await (await fetch(`${adminUrls.notifications}${internal}`)).json()) as {
        items: { template: string; status: string }[];
      };
      return page.items[0]?.status === 'sent' ? page : undefined;
    });
    expect(log.items).toEqual([expect.objectContaining({ template: 'welcome', status: 'sent' })]);

    // A second start with the same state dir reports the running one instead of failing on ports.
    const second = launch();
    expect(await second.exited).toBe(0);
    expect(second.lines.join('\n')).toContain('Hireflow is already running');

    launcher.child.kill('SIGTERM');
    expect(await launcher.exited).toBe(0);
    for (const service of ['jobs', 'matching', 'notifications', 'media']) {
      expect(launcher.lines).toContain(`launcher      | ${service} exited with code 0`);
    }
  }, 150_000);

  it('says how to start Postgres when it does not answer', async () => {
    const run = launch({
      POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/postgres',
      HIREFLOW_STATE_DIR: `${stateDir}-pg`,
    });
    expect(await run.exited).toBe(1);
    expect(run.lines.join('\n')).toMatch(/Postgres does not answer[\s\S]*pg_ctlcluster/);
  });

  it('names a bad setting and stops', async () => {
    const run = launch({ HIREFLOW_PORT_BASE: 'many', HIREFLOW_STATE_DIR: `${stateDir}-cfg` });
    expect(await run.exited).toBe(78);
    expect(run.lines.join('\n')).toContain('HIREFLOW_PORT_BASE:');
  });
});
