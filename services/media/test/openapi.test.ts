import { describeApi } from '@hireflow/media';
import { describe, expect, it } from 'vitest';
import { filePart, formBody, useMediaHarness } from './harness.ts';

// media's part of the public API document (merged into docs/api/openapi.json):
// what describeApi() builds without a database, Redis or S3 is what the
// running app serves, and it describes the form a client sends.
const h = useMediaHarness('media-openapi', { worker: false });

describe('OpenAPI 3.1', () => {
  it('is served at /openapi.json and equals describeApi()', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(await describeApi()).toEqual(res.json());
    expect(Object.keys(res.json().paths).sort()).toEqual([
      '/media/{uploadId}/{variant}.webp',
      '/v1/uploads',
      '/v1/uploads/{id}',
    ]);
  });

  it('describes the upload as the multipart form a client sends, not the parsed body', async () => {
    const doc = await describeApi();
    const post = doc.paths['/v1/uploads']!.post as {
      requestBody: {
        content: Record<string, { schema: { properties: Record<string, { format?: string }> } }>;
      };
    };
    expect(Object.keys(post.requestBody.content)).toEqual(['multipart/form-data']);
    const fields = post.requestBody.content['multipart/form-data']!.schema.properties;
    expect(Object.keys(fields)).toEqual(['file', 'ownerType', 'ownerId']);
    expect(fields.file!.format).toBe('binary');
  });

  it('documents the variant route as it answers: no API key, WebP bytes', async () => {
    const doc = await describeApi();
    const get = doc.paths['/media/{uploadId}/{variant}.webp']!.get as {
      security: unknown[];
      responses: Record<string, { content?: object }>;
    };
    expect(get.security).toEqual([]);
    expect(Object.keys(get.responses['200']!.content!)).toEqual(['image/webp']);
    // The documented form is what the route takes (the body it parses into is not what clients send).
    const { payload, contentType } = await formBody([filePart(Buffer.from('not an image'))]);
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/uploads',
      payload,
      headers: { ...h.tenants.a.auth, 'content-type': contentType },
    });
    expect(res.statusCode).toBe(415);
  });
});
