import { randomUUID } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { configureSharp, makeVariants } from '@hireflow/media/images';
import {
  createMediaStore,
  type MediaStore,
  originalKey,
  publicVariantHeaders,
  VARIANT_CACHE_CONTROL,
  variantKey,
} from '@hireflow/media/storage';
import { uniqueName } from '@hireflow/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { jpegWithOrientation } from './fixtures/images.ts';

// The emulator the global setup started serves S3; each test gets its own bucket.
let client: S3Client;
let store: MediaStore;
const upload = () => ({ tenantId: randomUUID(), uploadId: randomUUID() });

beforeAll(async () => {
  await configureSharp();
  client = new S3Client({
    region: 'eu-west-1',
    endpoint: inject('awsEndpoint'),
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});
afterAll(() => client.destroy());

beforeEach(async () => {
  store = createMediaStore(client, uniqueName('media'));
  await store.ensureBucket();
});

describe('media store on the S3 emulator', () => {
  it('creates its bucket when missing, from racing callers, and accepts being asked again', async () => {
    const fresh = createMediaStore(client, uniqueName('fresh'));
    await expect(fresh.head('anything')).resolves.toBeUndefined();
    await Promise.all([fresh.ensureBucket(), fresh.ensureBucket(), fresh.ensureBucket()]);
    await fresh.ensureBucket();
    await fresh.put('probe', Buffer.from('x'), { contentType: 'text/plain' });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: fresh.bucket }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['probe']);
  });

  it('stores an original and its variants under the upload prefix, with their content types', async () => {
    const ref = upload();
    const original = await jpegWithOrientation(900, 600);
    const { variants } = await makeVariants(original);
    const put = await store.putOriginal(ref, original, 'image/jpeg');
    for (const variant of variants) await store.putVariant(ref, variant);

    expect(put.key).toBe(`uploads/${ref.tenantId}/${ref.uploadId}/original`);
    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: store.bucket, Prefix: `uploads/${ref.tenantId}/` }),
    );
    expect(listed.Contents?.map((c) => c.Key).sort()).toEqual([
      `uploads/${ref.tenantId}/${ref.uploadId}/medium.webp`,
      `uploads/${ref.tenantId}/${ref.uploadId}/original`,
      `uploads/${ref.tenantId}/${ref.uploadId}/thumb.webp`,
    ]);

    expect(await store.head(originalKey(ref))).toMatchObject({
      contentType: 'image/jpeg',
      contentLength: original.length,
      cacheControl: undefined,
    });
    expect(await store.getBytes(originalKey(ref))).toEqual(original);
  });

  it('serves a variant as a stream with its type, length, ETag and a year-long cache policy', async () => {
    const ref = upload();
    const { variants } = await makeVariants(await jpegWithOrientation(900, 600));
    const thumb = variants.find((v) => v.name === 'thumb')!;
    const { etag } = await store.putVariant(ref, thumb);

    const got = await store.get(variantKey(ref, 'thumb'));
    if (got.status !== 'found') throw new Error(`expected the thumb, got ${got.status}`);
    expect(got.object).toMatchObject({
      contentType: 'image/webp',
      contentLength: thumb.bytes.length,
      etag,
      cacheControl: VARIANT_CACHE_CONTROL,
    });
    expect(etag).toMatch(/^"[^"]+"$/);
    const body = Buffer.concat(await got.body.toArray());
    expect(body).toEqual(thumb.bytes);
    expect(await sharp(body).metadata()).toMatchObject({
      format: 'webp',
      width: thumb.width,
      height: thumb.height,
    });

    expect(publicVariantHeaders(got.object)).toMatchObject({
      'content-type': 'image/webp',
      'content-length': String(thumb.bytes.length),
      etag,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
  });

  it('answers not-modified when the client already holds the current ETag', async () => {
    const ref = upload();
    const key = variantKey(ref, 'medium');
    const { etag } = await store.put(key, Buffer.from('RIFF....WEBP'), { contentType: 'image/webp' });
    expect(await store.get(key, { ifNoneMatch: etag })).toEqual({ status: 'not-modified', etag });
    const stale = await store.get(key, { ifNoneMatch: '"something-else"' });
    expect(stale.status).toBe('found');
    if (stale.status === 'found') await text(stale.body);
  });

  it('says missing for an object that is not there, on get, getBytes and head', async () => {
    const key = variantKey(upload(), 'thumb');
    expect(await store.get(key)).toEqual({ status: 'missing' });
    expect(await store.getBytes(key)).toBeUndefined();
    expect(await store.head(key)).toBeUndefined();
  });

  it('fails loudly when the bucket itself is missing, instead of calling the object missing', async () => {
    const absent = createMediaStore(client, uniqueName('absent'));
    await expect(absent.get(variantKey(upload(), 'thumb'))).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });
});
