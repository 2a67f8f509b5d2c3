import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pdf, png, pngClaiming, text, truncatedPng } from './fixtures/images.ts';
import { filePart, formBody, useMediaHarness } from './harness.ts';

// Every bad input of the issue, each its own test: a clear 4xx naming the
// field, or an upload that ends `failed` with a reason; never a 5xx.
const h = useMediaHarness('media-bad-input', { env: { MEDIA_MAX_FILE_BYTES: String(256 * 1024) } });

async function refused(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  return res.json() as {
    status: number;
    code: string;
    detail: string;
    errors?: { field: string; message: string }[];
  };
}

async function failedWithReason(parts: Parameters<typeof h.upload>[0]) {
  const res = await h.upload(parts);
  expect(res.statusCode).toBe(202);
  const { id } = res.json<{ id: string }>();
  const view = await h.waitForFinished(id);
  expect(view.status).toBe('failed');
  expect(view.variants).toEqual([]);
  const events = await h.events(id);
  expect(events).toEqual([
    expect.objectContaining({
      type: 'media.failed.v1',
      data: expect.objectContaining({ reason: view.reason }),
    }),
  ]);
  // Failed on the first attempt, not retried: the task completed with the outcome.
  expect(await h.taskState(id)).toBe('completed');
  return view.reason;
}

describe('bad uploads', () => {
  it('zero bytes → 400 naming file', async () => {
    const res = await h.upload([filePart(Buffer.alloc(0))]);
    expect(res.statusCode).toBe(400);
    expect((await refused(res)).errors).toEqual([{ field: 'file', message: 'is empty' }]);
  });

  it('text with a .png name and an image/png part type → 415, decided from the bytes', async () => {
    const res = await h.upload([filePart(text(), { filename: 'cv.png', contentType: 'image/png' })]);
    expect(res.statusCode).toBe(415);
    const body = await refused(res);
    expect(body.code).toBe('UNSUPPORTED_IMAGE_TYPE');
    expect(body.errors).toEqual([
      { field: 'file', message: 'text files are not accepted; send JPEG, PNG, WebP, GIF or AVIF' },
    ]);
  });

  it('a PDF → 415 naming what it is', async () => {
    const res = await h.upload([filePart(pdf(), { filename: 'logo.png' })]);
    expect(res.statusCode).toBe(415);
    expect((await refused(res)).errors![0]!.message).toMatch(/^PDF files are not accepted/);
  });

  it('a PNG header claiming 30000×30000 → 422 before anything is decoded or stored', async () => {
    const res = await h.upload([filePart(pngClaiming(30_000, 30_000))]);
    expect(res.statusCode).toBe(422);
    const body = await refused(res);
    expect(body.code).toBe('TOO_MANY_PIXELS');
    expect(body.errors).toEqual([
      { field: 'file', message: 'the image 30000×30000 has more than the limit of 40000000 pixels' },
    ]);
  });

  it('a truncated PNG → 202, then failed with a reason on the first attempt', async () => {
    expect(await failedWithReason([filePart(await truncatedPng(0.5))])).toMatch(
      /corrupt or truncated|ends early/,
    );
  });

  it('the wrong field name → 400 naming file', async () => {
    const res = await h.upload([filePart(await png(10, 10), { name: 'image' })]);
    expect(res.statusCode).toBe(400);
    expect((await refused(res)).errors).toEqual([
      { field: 'file', message: 'is required; the image came in the field "image"' },
    ]);
  });

  it('no file part at all → 400 naming file', async () => {
    const res = await h.upload([{ name: 'ownerType', data: 'job' }]);
    expect(res.statusCode).toBe(400);
    expect((await refused(res)).errors).toEqual([
      { field: 'file', message: 'is required (a file part named "file")' },
    ]);
  });

  it('a file over the limit → 413 naming file', async () => {
    const res = await h.upload([filePart(Buffer.concat([await png(10, 10), Buffer.alloc(300 * 1024)]))]);
    expect(res.statusCode).toBe(413);
    const body = await refused(res);
    expect(body.code).toBe('FILE_TOO_LARGE');
    expect(body.errors).toEqual([{ field: 'file', message: 'is larger than the limit of 262144 bytes' }]);
  });

  it('two files in one request → 400 naming file', async () => {
    const image = await png(10, 10);
    const res = await h.upload([filePart(image), filePart(image)]);
    expect(res.statusCode).toBe(400);
    expect((await refused(res)).errors).toEqual([
      { field: 'file', message: 'must be one file; the form has two' },
    ]);
  });

  it('three files → 400 naming file', async () => {
    const image = await png(10, 10);
    const res = await h.upload([filePart(image), filePart(image), filePart(image)]);
    expect(res.statusCode).toBe(400);
    expect((await refused(res)).errors![0]!.field).toBe('file');
  });

  it('not multipart → 415 saying what to send', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/uploads',
      headers: { ...h.tenants.a.auth, 'content-type': 'application/json' },
      payload: '{"file":"x"}',
    });
    expect(res.statusCode).toBe(415);
    expect((await refused(res)).detail).toMatch(/multipart\/form-data/);
    const image = await h.app.inject({
      method: 'POST',
      url: '/v1/uploads',
      headers: { ...h.tenants.a.auth, 'content-type': 'image/png' },
      payload: await png(5, 5),
    });
    expect(image.statusCode).toBe(415);
  });

  it('a malformed multipart body → 400', async () => {
    const { payload, contentType } = await formBody([filePart(await png(10, 10))]);
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/uploads',
      headers: { ...h.tenants.a.auth, 'content-type': contentType },
      payload: payload.subarray(0, payload.length - 60),
    });
    expect(res.statusCode).toBe(400);
    expect((await refused(res)).errors![0]!.field).toBe('body');
  });

  it('owner fields: an unknown owner type, a bad id, one without the other, an unknown field → 400 naming each', async () => {
    const image = await png(10, 10);
    const cases: [Parameters<typeof h.upload>[0], string][] = [
      [
        [filePart(image), { name: 'ownerType', data: 'tenant' }, { name: 'ownerId', data: randomUUID() }],
        'ownerType',
      ],
      [[filePart(image), { name: 'ownerType', data: 'job' }, { name: 'ownerId', data: 'x' }], 'ownerId'],
      [[filePart(image), { name: 'ownerType', data: 'job' }], 'ownerId'],
      [[filePart(image), { name: 'caption', data: 'hi' }], 'caption'],
      [
        [filePart(image), { name: 'ownerType', data: 'job' }, { name: 'ownerType', data: 'job' }],
        'ownerType',
      ],
    ];
    for (const [parts, field] of cases) {
      const res = await h.upload(parts);
      expect(res.statusCode, field).toBe(400);
      expect(
        (await refused(res)).errors!.map((e) => e.field),
        field,
      ).toContain(field);
    }
  });
});
