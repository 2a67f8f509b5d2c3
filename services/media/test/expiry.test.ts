import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordOwner } from '../src/modules/owners/store.ts';
import { originalKey, variantKey } from '../src/modules/storage/index.ts';
import { expireUnattachedUploads } from '../src/modules/uploads/expiry.ts';
import { png } from './fixtures/images.ts';
import { filePart, useMediaHarness } from './harness.ts';

// API4: an upload sent without an owner, or naming one media has not heard
// of in the tenant, cannot park bytes in Hireflow's bucket: an hour after it
// was accepted (MEDIA_UNATTACHED_TTL_MS) it is removed, original, variants and
// row. An upload whose owner media knows stays (owners.test.ts has the events).
// Real Postgres, Redis and the emulator's S3; the worker resizes.
const h = useMediaHarness('media-expiry');
const HOUR = 3_600_000;

const idOf = (res: { json(): unknown }) => (res.json() as { id: string }).id;

describe('API4: uploads without an owner expire', () => {
  it('removes an ownerless upload and one of an unknown owner an hour old (bytes, variants, row); keeps one with a known owner and a younger one', async () => {
    const image = await png(300, 200);
    const jobId = randomUUID();
    await recordOwner(h.deps.orm.em.fork(), {
      tenantId: h.tenants.a.tenantId,
      ownerType: 'job',
      ownerId: jobId,
    });
    const withOwner = (ownerId: string) => [
      { name: 'ownerType', data: 'job' },
      { name: 'ownerId', data: ownerId },
      filePart(image),
    ];
    const ownerless = idOf(await h.upload([filePart(image)]));
    const unknownOwner = idOf(await h.upload(withOwner(randomUUID())));
    const owned = idOf(await h.upload(withOwner(jobId)));
    const young = idOf(await h.upload([filePart(image)]));
    for (const id of [ownerless, unknownOwner, owned, young]) await h.waitForFinished(id);
    await h.deps.orm.em
      .fork()
      .execute("UPDATE upload SET created_at = now() - interval '61 minutes' WHERE id IN (?)", [
        [ownerless, unknownOwner, owned],
      ]);

    const { removed } = await expireUnattachedUploads(h.deps.orm.em.fork(), h.store, {
      olderThanMs: HOUR,
      publicUrl: h.config.MEDIA_PUBLIC_URL,
    });
    expect(removed.sort()).toEqual([ownerless, unknownOwner].sort());
    const gone = await h.app.inject({
      method: 'GET',
      url: `/v1/uploads/${unknownOwner}`,
      headers: h.tenants.a.auth,
    });
    expect(gone.statusCode).toBe(404);

    const ref = { tenantId: h.tenants.a.tenantId, uploadId: ownerless };
    expect(await h.store.head(originalKey(ref))).toBeUndefined();
    expect(await h.store.head(variantKey(ref, 'thumb'))).toBeUndefined();
    expect(await h.store.head(variantKey(ref, 'medium'))).toBeUndefined();
    const get = await h.app.inject({
      method: 'GET',
      url: `/v1/uploads/${ownerless}`,
      headers: h.tenants.a.auth,
    });
    expect(get.statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: `/media/${ownerless}/thumb.webp` })).statusCode).toBe(
      404,
    );

    for (const id of [owned, young]) {
      const res = await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: h.tenants.a.auth });
      expect(res.json()).toMatchObject({ status: 'ready' });
    }
  });
});
