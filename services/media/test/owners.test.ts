import { randomUUID } from 'node:crypto';
import { sampleEvent } from '@hireflow/testing/samples';
import { describe, expect, it } from 'vitest';
import { originalKey } from '../src/modules/storage/index.ts';
import { expireUnattachedUploads } from '../src/modules/uploads/expiry.ts';
import { png } from './fixtures/images.ts';
import { filePart, type Tenant, type UploadView, useMediaHarness } from './harness.ts';

// API4: an upload naming an owner (a posting or a candidate) is attached only
// when media has heard of that owner in the uploading tenant, through its
// owners projection (job.posted.v1 / candidate.registered.v1 → media-inbox).
// Until then it expires like an upload without an owner. The events travel
// the real way: SNS → SQS (the emulator) → media's consumer → Postgres.
// Whether an upload would expire is asked of the expiry itself with a TTL of
// 0 (every upload is "old"): owner-expiry.test.ts runs the worker's sweep.
const h = useMediaHarness('media-owners');

const idOf = (res: { statusCode: number; json(): unknown }) => {
  expect(res.statusCode).toBe(202);
  return (res.json() as { id: string }).id;
};
const view = async (id: string, who: Tenant = h.tenants.a) => {
  const res = await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: who.auth });
  return {
    statusCode: res.statusCode,
    body: res.json<UploadView & { ownerConfirmed?: boolean; expiresAt?: string }>(),
  };
};
/** Uploads an image for this owner, waits until it is resized (the expiry leaves pending uploads alone). */
const uploadFor = async (ownerType: 'job' | 'candidate', ownerId: string, who: Tenant = h.tenants.a) => {
  const id = idOf(
    await h.upload(
      [
        { name: 'ownerType', data: ownerType },
        { name: 'ownerId', data: ownerId },
        filePart(await png(40, 30)),
      ],
      {},
      who,
    ),
  );
  await h.waitForFinished(id, who);
  return id;
};
/** Runs the expiry as if every upload were past the TTL; the ids it removed. */
const expireNow = async () =>
  (
    await expireUnattachedUploads(h.deps.orm.em.fork(), h.store, {
      olderThanMs: 0,
      publicUrl: h.config.MEDIA_PUBLIC_URL,
    })
  ).removed;
/** The owner each media.processed.v1 of this upload named (null: none), in outbox order. */
const announcedOwners = async (id: string) =>
  (await h.events(id))
    .filter((e) => e.type === 'media.processed.v1')
    .map((e) => (e.data as { ownerId?: string }).ownerId ?? null);
const posted = (tenantId: string, jobId: string) => sampleEvent('job.posted.v1', { tenantId, jobId });
const registered = (tenantId: string, candidateId: string) =>
  sampleEvent('candidate.registered.v1', { tenantId, candidateId });

describe('API4: an upload naming an owner media does not know', () => {
  it('is accepted, shown unconfirmed with its expiry, and removed by the expiry (a random ownerId)', async () => {
    const id = await uploadFor('job', randomUUID());
    const before = await view(id);
    expect(before.body).toMatchObject({ status: 'ready', ownerType: 'job', ownerConfirmed: false });
    const ttl = h.config.MEDIA_UNATTACHED_TTL_MS;
    expect(Date.parse(before.body.expiresAt!) - Date.parse(before.body.uploadedAt)).toBe(ttl);
    // Announced without the owner: no posting shows an image that is going to expire.
    expect(await announcedOwners(id)).toEqual([null]);

    expect(await expireNow()).toContain(id);
    expect((await view(id)).statusCode).toBe(404);
    expect(await h.store.head(originalKey({ tenantId: h.tenants.a.tenantId, uploadId: id }))).toBeUndefined();
  });

  it('is attached when the owner event arrives after the upload (job.posted.v1): no expiry', async () => {
    const jobId = randomUUID();
    const id = await uploadFor('job', jobId);
    expect((await view(id)).body.ownerConfirmed).toBe(false);

    const event = posted(h.tenants.a.tenantId, jobId);
    await h.publish(event);
    await h.spy.waitForHandled(event.id);

    const after = await view(id);
    expect(after.body).toMatchObject({ ownerConfirmed: true, status: 'ready' });
    expect(after.body.expiresAt).toBeUndefined();
    // Announced without its owner when ready, then with it once attached (jobs shows it then).
    expect(await announcedOwners(id)).toEqual([null, jobId]);
    expect(await expireNow()).not.toContain(id);
    expect((await view(id)).statusCode).toBe(200);
  });

  it('is attached at once when the owner event came first (candidate.registered.v1)', async () => {
    const candidateId = randomUUID();
    const event = registered(h.tenants.a.tenantId, candidateId);
    await h.publish(event);
    await h.spy.waitForHandled(event.id);

    const id = await uploadFor('candidate', candidateId);
    const shown = await view(id);
    expect(shown.body).toMatchObject({ ownerType: 'candidate', ownerId: candidateId, ownerConfirmed: true });
    expect(shown.body.expiresAt).toBeUndefined();
    expect(await announcedOwners(id)).toEqual([candidateId]);
    expect(await expireNow()).not.toContain(id);
    // The same id as a posting is another owner: not known.
    const asJob = await uploadFor('job', candidateId);
    expect((await view(asJob)).body.ownerConfirmed).toBe(false);
    expect(await expireNow()).toContain(asJob);
  });

  it("never takes another tenant's event as the owner: B's posting with the same id confirms nothing of A", async () => {
    const jobId = randomUUID();
    const id = await uploadFor('job', jobId);
    const other = posted(h.tenants.b.tenantId, jobId);
    await h.publish(other);
    await h.spy.waitForHandled(other.id);

    expect((await view(id)).body.ownerConfirmed).toBe(false);
    expect(await announcedOwners(id)).toEqual([null]);
    // B's own upload for its posting is attached, A's is still removed.
    const bs = await uploadFor('job', jobId, h.tenants.b);
    expect((await view(bs, h.tenants.b)).body.ownerConfirmed).toBe(true);
    const removed = await expireNow();
    expect(removed).toContain(id);
    expect(removed).not.toContain(bs);
  });

  it('applies a duplicate event once (the idempotency of every inbox, keyed by the event id)', async () => {
    const jobId = randomUUID();
    const id = await uploadFor('job', jobId);
    const event = posted(h.tenants.a.tenantId, jobId);
    await h.publish(event);
    await h.spy.waitForHandled(event.id);
    expect((await view(id)).body.ownerConfirmed).toBe(true);

    // Undo the effect by hand: were the redelivery applied again, it would redo it.
    const em = h.deps.orm.em.fork();
    await em.execute('DELETE FROM known_owner WHERE tenant_id = ? AND owner_id = ?', [
      h.tenants.a.tenantId,
      jobId,
    ]);
    await em.execute('UPDATE upload SET owner_pending = true WHERE id = ?', [id]);
    await h.publish(event);
    await h.spy.waitForCount({ eventId: event.id, outcome: 'handled' }, 2);
    expect((await view(id)).body.ownerConfirmed).toBe(false);
    expect(await announcedOwners(id)).toEqual([null, jobId]);
    const claims = await em.execute<{ status: string }[]>(
      'SELECT status FROM processed_message WHERE key = ?',
      [event.id],
    );
    expect(claims).toEqual([{ status: 'completed' }]);

    // Another event about the same posting (a replay of another copy) is applied.
    const again = posted(h.tenants.a.tenantId, jobId);
    await h.publish(again);
    await h.spy.waitForHandled(again.id);
    expect((await view(id)).body.ownerConfirmed).toBe(true);
  });

  it('attaches an upload that raced its owner event (owner known, upload left pending): the expiry attaches before it removes', async () => {
    const jobId = randomUUID();
    const id = await uploadFor('job', jobId);
    // What a race leaves: the owner committed, the upload committed after the event's UPDATE looked.
    await h.deps.orm.em
      .fork()
      .execute('INSERT INTO known_owner (tenant_id, owner_type, owner_id) VALUES (?, ?, ?)', [
        h.tenants.a.tenantId,
        'job',
        jobId,
      ]);
    const result = await expireUnattachedUploads(h.deps.orm.em.fork(), h.store, {
      olderThanMs: 0,
      publicUrl: h.config.MEDIA_PUBLIC_URL,
    });
    expect(result.attached).toBeGreaterThanOrEqual(1);
    expect(result.removed).not.toContain(id);
    expect((await view(id)).body.ownerConfirmed).toBe(true);
    expect(await announcedOwners(id)).toEqual([null, jobId]);
  });
});
