// The whole public API of the tests' own: jobs and media (API role) with
// their own databases, topology prefix and Redis prefix, one API key both
// know, and, when asked, both listening behind the local gateway at one
// base URL, with media's worker resizing uploads.
import { routeOf } from '@hireflow/contracts';
import { buildApp as buildJobsApp } from '@hireflow/jobs';
import { issueApiKey } from '@hireflow/jobs/api-keys';
import { jobsService } from '@hireflow/jobs/service';
import { startGateway } from '@hireflow/launcher';
import { buildApp as buildMediaApp } from '@hireflow/media';
import { applyIssued } from '@hireflow/media/api-keys';
import { mediaService } from '@hireflow/media/service';
import { startWorker as startMediaWorker } from '@hireflow/media/worker';
import { hashApiKey } from '@hireflow/runtime';
import { uniqueName } from '@hireflow/testing';
import { connectServiceUnderTest } from '@hireflow/testing/service';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

export interface PublicApiHarness {
  jobs: FastifyInstance;
  media: FastifyInstance;
  apiKey: string;
  auth: { authorization: string };
  /** The one base URL (with `listen`): the gateway in front of both. */
  baseUrl: string;
  /** A request to whichever app serves its path, as the gateway would send it. */
  inject(request: InjectOptions & { url: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startPublicApi(
  label: string,
  options: { env?: Record<string, string>; listen?: boolean; mediaWorker?: boolean } = {},
): Promise<PublicApiHarness> {
  const closing: { close(): Promise<unknown> }[] = [];
  const close = async () => {
    for (const part of closing.reverse()) await part.close();
  };
  try {
    const gateway = options.listen ? await startGateway({ port: 0 }) : undefined;
    if (gateway) closing.push({ close: gateway.stop });
    const env = {
      ROLE: 'api',
      // Variant URLs under the one base URL, as `pnpm start` and AWS make them.
      MEDIA_PUBLIC_URL: gateway?.url ?? 'http://127.0.0.1:3000',
      ...options.env,
    };
    const jobsDeps = await connectServiceUnderTest({
      ...jobsService,
      service: 'jobs',
      label: `${label}-jobs`,
      env,
    });
    closing.push(jobsDeps);
    const mediaDeps = await connectServiceUnderTest({
      ...mediaService,
      service: 'media',
      label: `${label}-media`,
      env: { ...env, ROLE: options.mediaWorker ? 'all' : 'api' },
    });
    closing.push(mediaDeps);
    const jobs = await buildJobsApp(jobsDeps.config, jobsDeps.deps);
    closing.push(jobs);
    const media = await buildMediaApp(mediaDeps.config, mediaDeps.deps);
    closing.push(media);
    if (options.mediaWorker) {
      const worker = await startMediaWorker(mediaDeps.config, mediaDeps.deps);
      closing.push({
        close: async () => {
          for (const part of worker) await part.close();
        },
      });
    }

    // One key in jobs (which issues keys) and in media's projection of them.
    const issued = await issueApiKey(jobsDeps.deps.orm.em.fork(), uniqueName('tenant'), 'api@example.test');
    await applyIssued(mediaDeps.deps.orm.em.fork(), {
      keyId: issued.keyId,
      tenantId: issued.tenantId,
      keyHash: hashApiKey(issued.key),
      issuedAt: new Date().toISOString(),
    });

    if (gateway) {
      await jobs.listen({ port: 0, host: '127.0.0.1' });
      await media.listen({ port: 0, host: '127.0.0.1' });
      const urlOf = (app: FastifyInstance) =>
        `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      gateway.setTargets({ jobs: urlOf(jobs), media: urlOf(media) });
    }
    return {
      jobs,
      media,
      apiKey: issued.key,
      auth: { authorization: `Bearer ${issued.key}` },
      baseUrl: gateway?.url ?? '',
      inject: (request) => {
        const service = routeOf(request.url);
        if (!service) throw new Error(`${request.url} is not a public path`);
        return (service === 'jobs' ? jobs : media).inject(request);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
