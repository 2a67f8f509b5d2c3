import { join } from 'node:path';
import {
  type ConsumerName,
  consumerPort,
  SERVICE_NAMES,
  SUBSCRIBER_NAMES,
  topology,
} from '@hireflow/contracts';
import { ensureDatabase } from '@hireflow/db';
import { type Emulator, startEmulator } from '@hireflow/emulator';
import { instanceNames, provisionTopology } from '@hireflow/ops';
import { awsSettings, createSnsClient, createSqsClient } from '@hireflow/runtime/aws';
import { createS3Client } from '@hireflow/runtime/s3';
import { type DemoKey, ensureDemoKey, ensureMediaKnowsDemoKey, jobsCli } from './demo-tenant.ts';
import { type Gateway, startGateway } from './gateway.ts';
import { ensureLocalSecrets } from './local-secrets.ts';
import { type MailCatcher, startMailCatcher } from './mail-catcher.ts';
import { type RunningServices, startServices } from './services.ts';
import type { LauncherSettings } from './settings.ts';
import { startTraceBackend, type TraceBackend } from './traces.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

export interface RunningPlatform {
  /** The public API's one base URL (the gateway in front of jobs and media). */
  api: string;
  services: Record<string, string>;
  /** Each service's admin listener (metrics, Bull Board, /internal routes). */
  admin: Record<string, string>;
  awsEndpoint: string;
  demo: DemoKey;
  /**
   * Creates a tenant (if new) and a key of its own, as `pnpm cli api-key create`
   * does: for tools and tests that need more than the demo tenant (a
   * tenant's key works on jobs at once; media learns it from its event).
   */
  createApiKey(tenant: string, contactEmail: string): Promise<DemoKey>;
  /** The file that keeps the instance's generated secrets (ADMIN_TOKEN among them). */
  secretsFile: string;
  /** The admin ports' token (the environment's, else the generated one): what scrapers send. */
  adminToken: string;
  mail?: { smtpUrl: string; uiUrl: string } | undefined;
  /** The local webhook receiver: endpoints to register under `url`, its page at `url` (docs/webhooks.md). */
  webhooks: { url: string };
  /** Where the services send traces; `uiUrl` when the launcher runs the local trace viewer. */
  traces: { otlpEndpoint: string; uiUrl: string | undefined };
  /** Each service process's pid (for tools that measure them). */
  pids: Record<string, number>;
  /** Resolves when a service exits without being asked to. */
  unexpectedExit: Promise<string>;
  /** SIGTERM every service, wait for each, stop the emulator, mail catcher, webhook receiver and trace viewer. 0 when every child exited 0. */
  stop(): Promise<number>;
}

export interface PlatformOptions {
  root: string;
  env: Record<string, string | undefined>;
  write: (line: string) => void;
  color: boolean;
  readyTimeoutMs?: number;
  /** Respawn an API process that exits unexpectedly, instead of reporting it in `unexpectedExit` (`pnpm chaos`). */
  restartApis?: boolean;
  /** Told each time an API process was restarted. */
  log?: (line: string) => void;
}

/** Starts the whole system on this machine, as `pnpm start` does. */
export async function startPlatform(
  settings: LauncherSettings,
  options: PlatformOptions,
): Promise<RunningPlatform> {
  const names = instanceNames(settings, options.root);
  const log = (line: string) => options.write(`launcher      | ${line}`);
  let emulator: Emulator | undefined;
  let mail: MailCatcher | undefined;
  let traces: TraceBackend | undefined;
  let receiver: WebhookReceiver | undefined;
  let services: RunningServices | undefined;
  let gateway: Gateway | undefined;

  const stopAll = async (): Promise<number> => {
    // First: no new request reaches a service that is stopping.
    await gateway?.stop();
    const code = (await services?.stop()) ?? 0;
    await mail?.stop();
    await receiver?.stop();
    // After the services: their last spans are exported as they shut down.
    await traces?.viewer?.stop();
    await emulator?.stop();
    return code;
  };

  try {
    // What the services need before they start, started side by side (issue
    // 31): the emulator and its topology, the databases, the mail catcher, the
    // gateway, the trace backend and the local secrets do not wait for one
    // another. Each one is kept as it comes up, so a failure elsewhere still
    // stops it.
    const topologyReady = (async () => {
      let endpoint = settings.AWS_ENDPOINT_URL;
      if (!endpoint) {
        emulator = await startEmulator({ port: settings.EMULATOR_PORT, region: settings.AWS_REGION }).catch(
          (error) => {
            throw new Error(
              `cannot start the SNS/SQS emulator on 127.0.0.1:${settings.EMULATOR_PORT} (${error.message}); ` +
                'set EMULATOR_PORT to a free port, or AWS_ENDPOINT_URL to an emulator that runs',
            );
          },
        );
        endpoint = emulator.endpoint;
        log(`SNS/SQS emulator on ${endpoint}`);
      } else {
        log(`using SNS/SQS at ${endpoint}`);
      }
      const settingsOfAws = awsSettings({ ...settings, AWS_ENDPOINT_URL: endpoint }, options.env);
      const sns = createSnsClient(settingsOfAws);
      const sqs = createSqsClient(settingsOfAws);
      const s3 = createS3Client(settingsOfAws);
      try {
        const provisioned = await provisionTopology(topology, { sns, sqs, s3, prefix: names.topologyPrefix });
        log(
          `topology provisioned: ${Object.keys(provisioned.topics).length} topics, ${Object.keys(provisioned.queues).length} queues (+DLQs), ${provisioned.subscriptions.length} subscriptions`,
        );
      } finally {
        sns.destroy();
        sqs.destroy();
        s3.destroy();
      }
      return { awsEndpoint: endpoint, aws: settingsOfAws };
    })();

    const { databaseUrl } = names;
    const databasesReady = Promise.all(
      SERVICE_NAMES.map(async (service) => {
        const { created } = await ensureDatabase(databaseUrl(service));
        if (created) log(`created database ${names.database(service)}`);
      }),
    );

    const mailReady = (async () => {
      if (settings.SMTP_URL) return settings.SMTP_URL;
      mail = await startMailCatcher({
        smtpPort: settings.MAIL_SMTP_PORT,
        uiPort: settings.MAIL_UI_PORT,
        dir: join(names.stateDir, 'mail'),
      }).catch((error) => {
        throw new Error(
          `cannot start the mail catcher on ports ${settings.MAIL_SMTP_PORT}/${settings.MAIL_UI_PORT} (${error.message}); set MAIL_SMTP_PORT/MAIL_UI_PORT, or SMTP_URL`,
        );
      });
      log(`mail catcher: SMTP ${mail.smtpUrl}, read mail at ${mail.uiUrl}`);
      return mail.smtpUrl;
    })();

    // Before the services: its URL is the public base of media's variant URLs, even on a free port.
    const gatewayReady = (async () => {
      gateway = await startGateway({ port: settings.HIREFLOW_API_PORT }).catch((error) => {
        throw new Error(
          `cannot start the API gateway on 127.0.0.1:${settings.HIREFLOW_API_PORT} (${error.message}); set HIREFLOW_API_PORT to a free port`,
        );
      });
      log(`API gateway on ${gateway.url} (jobs and media behind one base URL)`);
      return gateway;
    })();

    const tracesReady = (async () => {
      traces = await startTraceBackend(settings);
      log(traces.description);
      return traces;
    })();

    // After the trace backend: its page links each delivery to the trace viewer.
    const receiverReady = (async () => {
      const { viewer } = await tracesReady;
      const started = await startWebhookReceiver({
        port: settings.WEBHOOK_RECEIVER_PORT,
        traceUiUrl: viewer?.uiUrl,
      }).catch((error) => {
        throw new Error(
          `cannot start the webhook receiver on 127.0.0.1:${settings.WEBHOOK_RECEIVER_PORT} (${error.message}); set WEBHOOK_RECEIVER_PORT to a free port`,
        );
      });
      receiver = started;
      log(`webhook receiver: register ${started.url}/in/<name>, see what arrived at ${started.url}`);
      return started;
    })();

    // Generated per state directory (the environment's own values win): no published default.
    const secretsReady = ensureLocalSecrets(names.stateDir, options.env);

    const all = [
      topologyReady,
      databasesReady,
      mailReady,
      gatewayReady,
      tracesReady,
      secretsReady,
      receiverReady,
    ] as const;
    // Every one settled before a failure is thrown: stopAll then stops each that came up.
    const failed = (await Promise.allSettled(all)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const [{ awsEndpoint, aws }, , smtpUrl, startedGateway, tracing, secrets, startedReceiver] =
      await Promise.all(all);
    const api = startedGateway.url;

    const envOf = (service: ConsumerName): Record<string, string | undefined> => ({
      ...options.env,
      ...secrets.values,
      OTEL_SERVICE_NAME: service,
      DATABASE_URL: databaseUrl(service),
      REDIS_URL: settings.REDIS_URL,
      REDIS_PREFIX: names.redisPrefix(service),
      AWS_REGION: settings.AWS_REGION,
      AWS_ENDPOINT_URL: awsEndpoint,
      AWS_ACCESS_KEY_ID: options.env.AWS_ACCESS_KEY_ID ?? 'test',
      AWS_SECRET_ACCESS_KEY: options.env.AWS_SECRET_ACCESS_KEY ?? 'test',
      AWS_EC2_METADATA_DISABLED: 'true',
      HIREFLOW_TOPOLOGY_PREFIX: names.topologyPrefix,
      SMTP_URL: smtpUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: tracing.endpoint,
      PORT: String(consumerPort(service, settings.HIREFLOW_PORT_BASE)),
      HOST: '127.0.0.1',
      LOG_LEVEL: settings.LOG_LEVEL,
      // The gateway (loopback) appends the client's address to X-Forwarded-For.
      TRUST_PROXY: options.env.TRUST_PROXY ?? '127.0.0.1',
      // Variant URLs are under the one base URL, as on AWS (media makes
      // them, jobs checks them).
      ...((service === 'media' || service === 'jobs') && !options.env.MEDIA_PUBLIC_URL
        ? { MEDIA_PUBLIC_URL: api }
        : {}),
      // A webhook receiver on this machine (http://127.0.0.1:…) must work locally (docs/webhooks.md).
      ...(service === 'jobs'
        ? {
            WEBHOOK_ALLOW_HTTP: options.env.WEBHOOK_ALLOW_HTTP ?? 'true',
            WEBHOOK_ALLOW_PRIVATE: options.env.WEBHOOK_ALLOW_PRIVATE ?? 'true',
          }
        : {}),
    });
    const restarted: Record<string, { url: string; admin: string }> = {};
    services = await startServices({
      settings,
      root: options.root,
      stateDir: names.stateDir,
      envOf,
      write: options.write,
      color: options.color,
      readyTimeoutMs: options.readyTimeoutMs ?? settings.HIREFLOW_READY_TIMEOUT_MS,
      ...(options.restartApis
        ? {
            onApiRestarted: (service: string, url: string, adminUrl: string) => {
              restarted[service] = { url, admin: adminUrl };
              gateway?.setTargets({
                jobs: restarted.jobs?.url ?? urls.jobs,
                media: restarted.media?.url ?? urls.media,
                notifications: restarted.notifications?.url ?? urls.notifications,
              });
              options.log?.(`${service} API restarted on ${url}`);
            },
          }
        : {}),
    });
    const urls = services.urls;
    const adminUrls = services.admin;
    const everyService: string[] = [...SERVICE_NAMES, ...SUBSCRIBER_NAMES];

    startedGateway.setTargets({ jobs: urls.jobs, media: urls.media, notifications: urls.notifications });

    const demo = await ensureDemoKey({ root: options.root, stateDir: names.stateDir, env: envOf('jobs') });
    const replaySqs = createSqsClient(aws);
    try {
      const caughtUp = await ensureMediaKnowsDemoKey({
        root: options.root,
        env: envOf('jobs'),
        mediaAdminUrl: adminUrls.media!,
        jobsAdminUrl: adminUrls.jobs!,
        sqs: replaySqs,
        topologyPrefix: names.topologyPrefix,
        demo,
      });
      if (caughtUp.outcome === 'replayed') {
        log(
          `media did not know the demo key: replayed ${caughtUp.sent} API-key event${caughtUp.sent === 1 ? '' : 's'} from jobs' event log into media-inbox`,
        );
      } else if (caughtUp.outcome === 'announced') {
        log(
          "media did not know the demo key, older than jobs' event log: API keys announced again (pnpm cli api-key announce)",
        );
      }
    } finally {
      replaySqs.destroy();
    }

    return {
      api,
      services: Object.fromEntries(everyService.map((s) => [s, urls[s]!])),
      admin: Object.fromEntries(everyService.map((s) => [s, adminUrls[s]!])),
      awsEndpoint,
      demo,
      async createApiKey(tenant, contactEmail) {
        const issued = (await jobsCli({ root: options.root, env: envOf('jobs') }, [
          'api-key',
          'create',
          tenant,
          '--contact',
          contactEmail,
          '--json',
        ])) as DemoKey;
        return { tenantId: issued.tenantId, keyId: issued.keyId, key: issued.key };
      },
      secretsFile: secrets.file,
      adminToken: secrets.values.ADMIN_TOKEN,
      mail: mail && { smtpUrl: mail.smtpUrl, uiUrl: mail.uiUrl },
      webhooks: { url: startedReceiver.url },
      traces: { otlpEndpoint: tracing.endpoint, uiUrl: tracing.viewer?.uiUrl },
      get pids() {
        return services!.pids();
      },
      unexpectedExit: services.unexpectedExit,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
