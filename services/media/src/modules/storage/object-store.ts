import type { Readable } from 'node:stream';
import {
  type BucketLocationConstraint,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Variant } from '../images/variants.ts';
import { originalKey, type UploadRef, variantKey } from './keys.ts';

/** Variants never change under their key (a new upload gets a new id): caches may keep them for a year. */
export const VARIANT_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export interface StoredObject {
  key: string;
  contentType: string;
  contentLength: number;
  /** As S3 gives it, quotes included: usable as an HTTP ETag header as is. */
  etag: string;
  cacheControl: string | undefined;
  lastModified: Date | undefined;
}

export type GetObjectResult =
  | { status: 'found'; object: StoredObject; body: Readable }
  | { status: 'not-modified'; etag: string }
  | { status: 'missing' };

export interface MediaStore {
  readonly bucket: string;
  /** Creates the bucket unless it exists; safe to call on every start and from racing processes. */
  ensureBucket(): Promise<void>;
  put(
    key: string,
    bytes: Uint8Array,
    headers: { contentType: string; cacheControl?: string },
  ): Promise<{ etag: string }>;
  /** The upload as received; its content type is the one detected from its bytes. */
  putOriginal(
    upload: UploadRef,
    bytes: Uint8Array,
    contentType: string,
  ): Promise<{ key: string; etag: string }>;
  putVariant(upload: UploadRef, variant: Variant): Promise<{ key: string; etag: string }>;
  /** A stream of the object; `ifNoneMatch` (an ETag a client holds) gives `not-modified` when it still matches. */
  get(key: string, options?: { ifNoneMatch?: string }): Promise<GetObjectResult>;
  /** The whole object in memory (the worker reads an original, at most the upload limit), or undefined. */
  getBytes(key: string): Promise<Buffer | undefined>;
  head(key: string): Promise<StoredObject | undefined>;
  /** Removes the objects (a key already gone is fine). */
  delete(keys: string[]): Promise<void>;
}

/**
 * The media bucket through the S3 API. The caller owns the client: locally
 * one made for the emulator (`forcePathStyle: true`, its endpoint, dummy
 * credentials), on AWS the default chain.
 */
export function createMediaStore(client: S3Client, bucket: string): MediaStore {
  const put: MediaStore['put'] = async (key, bytes, headers) => {
    const output = await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: headers.contentType,
        CacheControl: headers.cacheControl,
      }),
    );
    return { etag: output.ETag ?? '' };
  };

  return {
    bucket,
    ensureBucket: () => ensureBucket(client, bucket),
    put,
    async putOriginal(upload, bytes, contentType) {
      const key = originalKey(upload);
      return { key, ...(await put(key, bytes, { contentType })) };
    },
    async putVariant(upload, variant) {
      const key = variantKey(upload, variant.name);
      const headers = { contentType: variant.contentType, cacheControl: VARIANT_CACHE_CONTROL };
      return { key, ...(await put(key, variant.bytes, headers)) };
    },
    async get(key, options = {}) {
      try {
        const output = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: options.ifNoneMatch }),
        );
        return { status: 'found', object: described(key, output), body: output.Body as Readable };
      } catch (error) {
        if (statusOf(error) === 304) return { status: 'not-modified', etag: options.ifNoneMatch ?? '' };
        if (isMissingKey(error)) return { status: 'missing' };
        throw error;
      }
    },
    async getBytes(key) {
      try {
        const output = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from((await output.Body?.transformToByteArray()) ?? []);
      } catch (error) {
        if (isMissingKey(error)) return undefined;
        throw error;
      }
    },
    async head(key) {
      try {
        return described(key, await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })));
      } catch (error) {
        // HEAD answers have no body, so S3 cannot say which thing is missing: 404 is "no such object"
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    },
    async delete(keys) {
      for (const key of keys) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

interface ObjectHeaders {
  ContentType?: string | undefined;
  ContentLength?: number | undefined;
  ETag?: string | undefined;
  CacheControl?: string | undefined;
  LastModified?: Date | undefined;
}

function described(key: string, output: ObjectHeaders): StoredObject {
  return {
    key,
    contentType: output.ContentType ?? 'application/octet-stream',
    contentLength: output.ContentLength ?? 0,
    etag: output.ETag ?? '',
    cacheControl: output.CacheControl,
    lastModified: output.LastModified,
  };
}

async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
  const region = await client.config.region();
  try {
    await client.send(
      new CreateBucketCommand({
        Bucket: bucket,
        // us-east-1 is the one region that refuses an explicit location
        CreateBucketConfiguration:
          region === 'us-east-1' ? undefined : { LocationConstraint: region as BucketLocationConstraint },
      }),
    );
  } catch (error) {
    // another process created it between our HEAD and CREATE
    if ((error as Error).name !== 'BucketAlreadyOwnedByYou') throw error;
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isMissingKey(error: unknown): boolean {
  return error instanceof Error && error.name === 'NoSuchKey';
}
