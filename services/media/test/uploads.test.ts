import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { recordOwner } from '../src/modules/owners/store.ts';
import { jpeg, jpegWithOrientation, png } from './fixtures/images.ts';
import { filePart, PUBLIC_URL, useMediaHarness } from './harness.ts';

const h = useMediaHarness('media-uploads');

const uploadId = (res: { json(): unknown }) => (res.json() as { id: string }).id;
const path = (url: string) => url.slice(PUBLIC_URL.length);

describe('POST /v1/uploads → worker → GET /v1/uploads/{id}', () => {
  it('answers 202 at once, then the variants appear with the right sizes and formats, announced once', async () => {
    // A posting media knows (its job.posted.v1 arrived: owners.test.ts), so the event names it.
    const ownerId = randomUUID();
    await recordOwner(h.deps.orm.em.fork(), { tenantId: h.tenants.a.tenantId, ownerType: 'job', ownerId });
    const res = await h.upload([
      filePart(await jpeg(2000, 1500), { filename: 'photo.jpg' }),
      { name: 'ownerType', data: 'job' },
      { name: 'ownerId', data: ownerId },
    ]);
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toMatchObject({ status: 'pending', id: expect.any(String) });
    expect(body.traceId === null || /^[0-9a-f]{32}$/.test(body.traceId)).toBe(true);
    expect(res.headers.location).toBe(`/v1/uploads/${body.id}`);
    expect(res.headers['cache-control']).toBe('no-store');

    const view = await h.waitForFinished(body.id);
    expect(view).toMatchObject({
      id: body.id,
      status: 'ready',
      ownerType: 'job',
      ownerId,
      ownerConfirmed: true,
    });
    expect(view.variants).toEqual([
      {
        name: 'medium',
        width: 512,
        height: 384,
        contentType: 'image/webp',
        url: `${PUBLIC_URL}/media/${body.id}/medium.webp`,
      },
      {
        name: 'thumb',
        width: 128,
        height: 96,
        contentType: 'image/webp',
        url: `${PUBLIC_URL}/media/${body.id}/thumb.webp`,
      },
    ]);
    for (const variant of view.variants) {
      const served = await h.app.inject({ method: 'GET', url: path(variant.url) });
      expect(served.statusCode).toBe(200);
      expect(await sharp(served.rawPayload).metadata()).toMatchObject({
        format: 'webp',
        width: variant.width,
        height: variant.height,
      });
    }

    const events = await h.events(body.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'media.processed.v1',
      source: 'hireflow/media',
      subject: body.id,
      data: {
        uploadId: body.id,
        tenantId: h.tenants.a.tenantId,
        ownerType: 'job',
        ownerId,
        uploadedAt: view.uploadedAt,
        variants: view.variants,
      },
    });
  });

  it('keeps the aspect ratio, never enlarges, applies EXIF orientation and strips metadata', async () => {
    const small = uploadId(await h.upload([filePart(await png(40, 30))]));
    const turned = uploadId(await h.upload([filePart(await jpegWithOrientation(300, 200))]));
    expect((await h.waitForFinished(small)).variants.map((v) => [v.name, v.width, v.height])).toEqual([
      ['medium', 40, 30],
      ['thumb', 40, 30],
    ]);
    const view = await h.waitForFinished(turned);
    expect(view.variants.map((v) => [v.name, v.width, v.height])).toEqual([
      ['medium', 200, 300],
      ['thumb', 85, 128],
    ]);
    const served = await h.app.inject({ method: 'GET', url: path(view.variants[0]!.url) });
    const metadata = await sharp(served.rawPayload).metadata();
    expect(metadata.exif).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
  });

  it("does not show another tenant's upload (404), and needs an API key", async () => {
    const id = uploadId(await h.upload([filePart(await png(20, 20))]));
    const other = await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: h.tenants.b.auth });
    expect(other.statusCode).toBe(404);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    const anonymous = await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}` });
    expect(anonymous.statusCode).toBe(401);
    const unknown = await h.app.inject({
      method: 'GET',
      url: `/v1/uploads/${id}`,
      headers: { authorization: 'Bearer hf_not-a-key' },
    });
    expect(unknown.statusCode).toBe(401);
    const notUuid = await h.app.inject({ method: 'GET', url: '/v1/uploads/abc', headers: h.tenants.a.auth });
    expect(notUuid.statusCode).toBe(400);
    expect(notUuid.json().errors).toEqual([{ field: 'id', message: 'must be a UUID' }]);
  });
});

describe('Idempotency-Key on POST /v1/uploads', () => {
  it('replays the first answer for the same file, refuses another file with 422', async () => {
    const key = { 'idempotency-key': randomUUID() };
    const image = await png(64, 48);
    const first = await h.upload([filePart(image)], key);
    const again = await h.upload([filePart(image, { filename: 'renamed.png' })], key);
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(uploadId(again)).toBe(uploadId(first));
    const other = await h.upload([filePart(await png(64, 49))], key);
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('IDEMPOTENCY_CONFLICT');
    await h.waitForFinished(uploadId(first));
    expect(await h.events(uploadId(first))).toHaveLength(1);
  });
});

describe('the public variant route', () => {
  it('serves bytes without an API key, with type, ETag, a year-long cache policy and nosniff; 304 on a match', async () => {
    const id = uploadId(await h.upload([filePart(await png(300, 200))]));
    const view = await h.waitForFinished(id);
    const thumb = await h.app.inject({ method: 'GET', url: `/media/${id}/thumb.webp` });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers).toMatchObject({
      'content-type': 'image/webp',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-length': String(thumb.rawPayload.length),
      // Other sites may show it in an <img>.
      'cross-origin-resource-policy': 'cross-origin',
    });
    expect(thumb.headers.etag).toMatch(/^"[^"]+"$/);
    expect(view.variants.find((v) => v.name === 'thumb')!.url).toBe(`${PUBLIC_URL}/media/${id}/thumb.webp`);
    const cached = await h.app.inject({
      method: 'GET',
      url: `/media/${id}/thumb.webp`,
      headers: { 'if-none-match': String(thumb.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.rawPayload.length).toBe(0);
    const head = await h.app.inject({ method: 'HEAD', url: `/media/${id}/thumb.webp` });
    expect(head.statusCode).toBe(200);
    expect(head.headers).toMatchObject({ 'content-type': 'image/webp', etag: thumb.headers.etag });
    expect(head.rawPayload.length).toBe(0);
  });

  it('serves nothing but a ready upload’s variants: not the original, not a path, not a pending upload', async () => {
    const id = uploadId(await h.upload([filePart(await png(30, 30))]));
    await h.waitForFinished(id);
    const pending = await h.store.putOriginal(
      { tenantId: h.tenants.a.tenantId, uploadId: randomUUID() },
      await png(5, 5),
      'image/png',
    );
    for (const url of [
      `/media/${id}/original`,
      `/media/${id}/thumb.png`,
      `/media/${id}/..%2Foriginal`,
      `/media/${id.toUpperCase()}/thumb.webp`,
      `/media/${randomUUID()}/thumb.webp`,
      `/media/${pending.key.split('/')[2]}/thumb.webp`,
      `/media/not-an-id/thumb.webp`,
      `/media/${h.tenants.a.tenantId}/${id}/thumb.webp`,
    ]) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });
});
