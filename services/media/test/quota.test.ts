import { describe, expect, it } from 'vitest';
import { png } from './fixtures/images.ts';
import { filePart, useMediaHarness } from './harness.ts';

// API4 (unrestricted resource consumption): a tenant keeps at most
// MEDIA_TENANT_QUOTA_BYTES of originals; an upload beyond it is refused
// before its bytes are stored, as problem+json naming the file. Another
// tenant's quota is its own. Real Postgres, Redis and the emulator's S3.
const h = useMediaHarness('media-quota', { worker: false, env: { MEDIA_TENANT_QUOTA_BYTES: '20000' } });

describe('API4: a per-tenant storage quota', () => {
  it("refuses the upload that would pass the tenant's quota with 413 problem+json; other tenants still upload", async () => {
    const image = await png(64, 64);
    expect(image.length).toBeLessThan(10_000);
    const accepted: number[] = [];
    let refused: Awaited<ReturnType<typeof h.upload>> | undefined;
    for (let i = 0; i < 80 && !refused; i++) {
      const res = await h.upload([filePart(image)]);
      if (res.statusCode === 202) accepted.push(image.length);
      // Load shedding on a busy machine (503) is not the quota: try again.
      else if (res.statusCode !== 503) refused = res;
    }
    expect(refused, 'an upload past the quota').toBeDefined();
    expect(accepted.reduce((a, b) => a + b, 0) + image.length).toBeGreaterThan(20_000);
    expect(accepted.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(20_000);
    expect(refused!.statusCode).toBe(413);
    expect(refused!.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused!.json()).toMatchObject({
      status: 413,
      code: 'STORAGE_QUOTA_EXCEEDED',
      errors: [{ field: 'file' }],
    });

    const other = await h.upload([filePart(image)], {}, h.tenants.b);
    expect(other.statusCode).toBe(202);
  });
});
