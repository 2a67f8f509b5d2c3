import { randomUUID } from 'node:crypto';
import { waitFor } from '@hireflow/testing';
import { sampleEvent } from '@hireflow/testing/samples';
import { describe, expect, it } from 'vitest';
import { originalKey, variantKey } from '../src/modules/storage/index.ts';
import { png } from './fixtures/images.ts';
import { filePart, useMediaHarness } from './harness.ts';

// API4, as the issue's acceptance puts it: "an ownerless upload refused or
// expired". The worker's own sweep, with a TTL of 2 s (it runs every second):
// an upload without an owner and one naming a random ownerId are removed,
// bytes and row; one whose owner media knows stays. Real Postgres, Redis,
// the emulator's SNS, SQS and S3, the worker's inbox and resize.
const TTL_MS = 2000;
const h = useMediaHarness('media-owner-expiry', { env: { MEDIA_UNATTACHED_TTL_MS: String(TTL_MS) } });

const idOf = (res: { statusCode: number; json(): unknown }) => {
  expect(res.statusCode).toBe(202);
  return (res.json() as { id: string }).id;
};
const status = async (id: string) =>
  (await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: h.tenants.a.auth })).statusCode;

describe('API4: uploads without a known owner expire (the worker sweep, a 2 s TTL)', () => {
  it('removes an ownerless upload and one naming a random ownerId; keeps one whose owner event arrived', async () => {
    const image = await png(64, 48);
    const jobId = randomUUID();
    const event = sampleEvent('job.posted.v1', { tenantId: h.tenants.a.tenantId, jobId });
    await h.publish(event);
    await h.spy.waitForHandled(event.id);

    // The kept one is the oldest: a sweep removing the later two would have removed it too, were it expirable.
    const kept = idOf(
      await h.upload([{ name: 'ownerType', data: 'job' }, { name: 'ownerId', data: jobId }, filePart(image)]),
    );
    const ownerless = idOf(await h.upload([filePart(image)]));
    const randomOwner = idOf(
      await h.upload([
        { name: 'ownerType', data: 'candidate' },
        { name: 'ownerId', data: randomUUID() },
        filePart(image),
      ]),
    );

    await waitFor(
      async () => ((await status(ownerless)) === 404 && (await status(randomOwner)) === 404) || undefined,
      { timeoutMs: 60_000, intervalMs: 200, message: 'the ownerless and the random-owner uploads removed' },
    );
    for (const id of [ownerless, randomOwner]) {
      const ref = { tenantId: h.tenants.a.tenantId, uploadId: id };
      expect(await h.store.head(originalKey(ref))).toBeUndefined();
      expect(await h.store.head(variantKey(ref, 'thumb'))).toBeUndefined();
      expect((await h.app.inject({ method: 'GET', url: `/media/${id}/thumb.webp` })).statusCode).toBe(404);
    }
    const shown = await h.app.inject({
      method: 'GET',
      url: `/v1/uploads/${kept}`,
      headers: h.tenants.a.auth,
    });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({ ownerConfirmed: true, status: 'ready' });
    expect(shown.json().expiresAt).toBeUndefined();
  });
});
