import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHireflowClient, type HireflowClient } from '@hireflow/client';
import { waitFor } from '@hireflow/testing';
import { startOtlpReceiver } from '@hireflow/testing/otlp';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, type Launcher, launch as launchInstance, printedUrls, root } from './launcher.ts';

const instance = `boot${randomBytes(3).toString('hex')}`;
const stateDir = `.local/test-${instance}`;
// Every log line the services write, to look for personal data in.
const launch = (extraEnv: Record<string, string> = {}) =>
  launchInstance(instance, stateDir, { LOG_LEVEL: 'debug', ...extraEnv });

// A 1×1 PNG: what a client uploads (the media tests cover real images).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** The demo tenant's client, through the one base URL (jobs and media behind it). */
async function demoClient(lines: string[]): Promise<{ client: HireflowClient; key: string }> {
  const demo = JSON.parse(await readFile(join(root, stateDir, instance, 'demo-api-key.json'), 'utf8'));
  const baseUrl = printedUrls(lines).api;
  expect(baseUrl).toBeDefined();
  return { client: createHireflowClient({ baseUrl: baseUrl!, apiKey: demo.key }), key: demo.key };
}

async function uploadReady(client: HireflowClient, owner?: { type: 'job'; id: string }) {
  const upload = await client.uploads.create(PNG, { filename: 'logo.png', contentType: 'image/png', owner });
  const ready = await client.uploads.waitUntilFinished(upload.id, { timeoutMs: 30_000, intervalMs: 100 });
  expect(ready.status).toBe('ready');
  return { upload, ready };
}

/** A candidate whose name and address must appear in no span and no log line (docs/security.md, API3). */
const CANDIDATE = { name: 'Zephyrine Quillfeather', email: `zephyrine.${instance}@privacy.example` };

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
      // The default process layout: each service's API in one process, its workers in a pool.
      HIREFLOW_SCALING: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    await launcher.waitForLine((l) => l.startsWith('Ctrl-C stops everything'), 120_000);

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

    // The demo tenant's key works through the one base URL with the typed client, and the 202's
    // traceId names a trace the jobs process exported.
    const { client } = await demoClient(launcher.lines);
    const { id: postingId, traceId } = await client.jobs.post(
      { title: 'Boot', description: 'd', skills: [], location: 'x', remote: false },
      { idempotencyKey: `boot-${instance}` },
    );
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    // A retry with the same key is the same posting; the status stream answers through the gateway.
    expect(
      (
        await client.jobs.post(
          { title: 'Boot', description: 'd', skills: [], location: 'x', remote: false },
          { idempotencyKey: `boot-${instance}` },
        )
      ).id,
    ).toBe(postingId);
    for await (const change of client.jobs.events(postingId, { reconnect: false })) {
      // processing, or matched already: matching may have run before the stream opened.
      expect(change).toMatchObject({
        jobId: postingId,
        status: expect.stringMatching(/^(processing|matched)$/),
      });
      break;
    }
    await waitFor(() => otlp!.spans.some((s) => s.service === 'jobs' && s.traceId === traceId), {
      timeoutMs: 20_000,
      message: `no span of trace ${traceId} from jobs`,
    });

    // One trace across every hop: the candidate's 202 traceId reaches the
    // notifications process (SNS → SQS → handler → BullMQ → SMTP).
    const registered = await client.candidates.register({
      name: CANDIDATE.name,
      email: CANDIDATE.email,
      headline: '',
      skills: [],
      location: '',
    });
    expect(registered.created).toBe(true);
    const candidateTrace = registered.traceId!;
    await waitFor(
      () =>
        otlp!.spans.some(
          (s) => s.service === 'notifications' && s.traceId === candidateTrace && s.name === 'smtp send',
        ),
      { timeoutMs: 30_000, message: `no smtp send span of trace ${candidateTrace} from notifications` },
    );

    // The notification log is read on the notifications admin port, never on its service port,
    // with the admin token pnpm start generated for this state directory (no published default).
    const { ADMIN_TOKEN: adminToken } = JSON.parse(
      await readFile(join(root, stateDir, instance, 'secrets.json'), 'utf8'),
    ) as { ADMIN_TOKEN: string };
    const internal = `/internal/notifications?recipient=${encodeURIComponent(CANDIDATE.email)}`;
    expect((await fetch(`${adminUrls.notifications}${internal}`)).status).toBe(401);
    expect((await fetch(`${urls.notifications}${internal}`)).status).toBe(404);
    // The send is recorded right after the SMTP accept the span above saw.
    const log = await waitFor(async () => {
      const page = (await (
        await fetch(`${adminUrls.notifications}${internal}`, {
          headers: { authorization: `Bearer ${adminToken}` },
        })
      ).json()) as {
        items: { template: string; status: string }[];
      };
      return page.items[0]?.status === 'sent' ? page : undefined;
    });
    expect(log.items).toEqual([expect.objectContaining({ template: 'welcome', status: 'sent' })]);

    // media, through the same base URL and key: an upload for the posting becomes its logo through
    // the whole path (media API → S3 → resize worker → outbox → SNS → jobs' inbox), in one trace.
    const { upload, ready } = await uploadReady(client, { type: 'job', id: postingId });
    const uploadTrace = upload.traceId!;
    const thumb = ready.variants.find((v) => v.name === 'thumb')!;
    // Variant URLs are under the one base URL too.
    expect(thumb.url.startsWith(printedUrls(launcher.lines).api!)).toBe(true);
    const served = await fetch(thumb.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    await waitFor(async () => (await client.jobs.get(postingId)).logo?.uploadId === upload.id, {
      timeoutMs: 30_000,
      message: `the logo of ${postingId}`,
    });
    await waitFor(
      () => {
        const names = otlp!.spans
          .filter((s) => s.service === 'media' && s.traceId === uploadTrace)
          .map((s) => s.name);
        return ['POST', 'add resize', 'process resize', 'resize'].every((prefix) =>
          names.some((name) => name.startsWith(prefix)),
        );
      },
      {
        timeoutMs: 20_000,
        message: `media's request, enqueue, job and resize spans of trace ${uploadTrace}`,
      },
    );

    // A second start with the same state dir reports the running one instead of failing on ports.
    const second = launch();
    expect(await second.exited).toBe(0);
    expect(second.lines.join('\n')).toContain('Hireflow is already running');

    launcher.child.kill('SIGTERM');
    expect(await launcher.exited).toBe(0);
    for (const service of ['jobs', 'matching', 'notifications', 'media']) {
      expect(launcher.lines).toContain(`launcher      | ${service} exited with code 0`);
      expect(launcher.lines).toContain(`launcher      | ${service}/1 exited with code 0`);
    }
    expect(launcher.lines).toContain('launcher      | media/2 exited with code 0');

    // API3: the candidate's name and address went through every service (HTTP,
    // Postgres, SNS, SQS, BullMQ, SMTP), and appear in no exported span and
    // no log line (debug level).
    const candidateSpans = otlp.spans.filter((s) => s.traceId === candidateTrace);
    expect(candidateSpans.length).toBeGreaterThan(10);
    expect(candidateSpans.some((s) => s.raw.includes('db.query.text'))).toBe(true);
    const [local, domain] = CANDIDATE.email.split('@') as [string, string];
    for (const secret of [CANDIDATE.email, local, domain, CANDIDATE.name, 'Quillfeather']) {
      expect(
        otlp.spans.filter((s) => s.raw.includes(secret)).map((s) => `${s.service}: ${s.name}`),
        secret,
      ).toEqual([]);
      expect(
        launcher.lines.filter((line) => line.includes(secret)),
        secret,
      ).toEqual([]);
    }
  }, 240_000);

  it('makes the demo key work on media after a restart whose media database is new', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS hireflow_${instance}_media WITH (FORCE)`);
    await client.end();
    launcher = launch({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp!.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    await launcher.waitForLine((l) => l.startsWith('Ctrl-C stops everything'), 120_000);
    // Through a replay of jobs' event log into media-inbox, not an announcement on the topic.
    expect(launcher.lines.join('\n')).toMatch(
      /media did not know the demo key: replayed [1-9]\d* API-key events? from jobs' event log into media-inbox/,
    );
    await uploadReady((await demoClient(launcher.lines)).client);
    launcher.child.kill('SIGTERM');
    expect(await launcher.exited).toBe(0);
  }, 240_000);

  it("announces the keys when jobs' event log does not hold the demo key (a key older than the log)", async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS hireflow_${instance}_media WITH (FORCE)`);
    await client.end();
    // As in a checkout whose outbox had pruned the key's event before the log existed.
    const jobs = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:5432/hireflow_${instance}_jobs`,
    });
    await jobs.connect();
    await jobs.query("DELETE FROM event_log WHERE type LIKE 'apikey.%'");
    await jobs.end();
    launcher = launch();
    await launcher.waitForLine((l) => l.startsWith('Ctrl-C stops everything'), 120_000);
    expect(launcher.lines.join('\n')).toContain(
      "media did not know the demo key, older than jobs' event log: API keys announced again",
    );
    const mediaUrl = launcher.lines
      .map((l) => l.match(/^ {2}media\s+(http:\/\/127\.0\.0\.1:\d+)\s/))
      .find(Boolean)?.[1];
    const demo = JSON.parse(await readFile(join(root, stateDir, instance, 'demo-api-key.json'), 'utf8'));
    const res = await fetch(`${mediaUrl}/v1/uploads/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${demo.key}` },
    });
    expect(res.status).toBe(404);
    launcher.child.kill('SIGTERM');
    expect(await launcher.exited).toBe(0);
  }, 240_000);

  it('says how to install and start Postgres when it does not answer and none is installed', async () => {
    // With Postgres' binaries installed, the launcher would start one of its
    // own on that address (test/hireflow.test.ts); here none is found.
    const run = launch({
      POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/postgres',
      HIREFLOW_PG_BIN: join(root, stateDir, 'no-postgres-here'),
      HIREFLOW_STATE_DIR: `${stateDir}-pg`,
    });
    expect(await run.exited).toBe(1);
    const output = run.lines.join('\n');
    expect(output).toContain('no Postgres is installed: apt-get install postgresql');
    expect(output).toMatch(/Postgres does not answer[\s\S]*pg_ctlcluster/);
  });

  it('names a bad setting and stops', async () => {
    const run = launch({ HIREFLOW_PORT_BASE: 'many', HIREFLOW_STATE_DIR: `${stateDir}-cfg` });
    expect(await run.exited).toBe(78);
    expect(run.lines.join('\n')).toContain('HIREFLOW_PORT_BASE:');
  });
});
