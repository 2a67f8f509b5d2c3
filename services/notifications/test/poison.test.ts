import { randomUUID } from 'node:crypto';
import { PublishCommand } from '@aws-sdk/client-sns';
import { topicOf } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { candidateRegistered, useNotificationsHarness } from './harness.ts';

// API10 (unsafe consumption): an event the catalog refuses is poison, dead-
// lettered on its first receive with the reason, never retried as if the
// database had failed. A NUL in a name once made Postgres fail (08P01) and
// was retried until the DLQ.
const h = useNotificationsHarness('notif-poison');

async function publishRaw(event: object, type: string) {
  await h.deps.sns.send(
    new PublishCommand({
      TopicArn: h.topology.topics[topicOf('candidate.registered.v1')]!.arn,
      Message: JSON.stringify(event),
      MessageAttributes: { type: { DataType: 'String', StringValue: type } },
    }),
  );
}

/** Publishes and waits for the next dead letter the inbox reports. */
async function nextDeadLetter(event: object, type: string) {
  const before = h.spy.all({ outcome: 'dead-lettered' }).length;
  await publishRaw(event, type);
  return (await h.spy.waitForCount({ outcome: 'dead-lettered' }, before + 1)).at(-1)!;
}

describe('API10: events the catalog refuses', () => {
  it.each([
    ['a NUL in the name', { name: 'Ada\u0000Lovelace' }, 'data.name'],
    ['a control character in the headline', { headline: 'Engineer\u0007' }, 'data.headline'],
    // API6: the display text rule holds for events injected past the API.
    ['a link in the name', { name: 'Click https://evil.example/login' }, 'data.name'],
    ['a shortener in the name', { name: 'Ada bit.ly/abc' }, 'data.name'],
    ['a .net host in the name', { name: 'scam.net' }, 'data.name'],
    ['a .io host in the name', { name: 'evil.io' }, 'data.name'],
    ['an IP address in the name', { name: '203.0.113.9/login' }, 'data.name'],
    ['a spaced host in the name', { name: 'evil .com' }, 'data.name'],
    ['a full-width host in the name', { name: 'ｅｖｉｌ．ｃｏｍ' }, 'data.name'],
    ['a right-to-left override in the name', { name: 'Ada \u202eevil' }, 'data.name'],
    ['a line separator in the name', { name: 'Ada\u2028x' }, 'data.name'],
    ['NEL in the headline', { headline: 'Engineer\u0085x' }, 'data.headline'],
  ])(
    '%s: dead-lettered on the first receive, naming the field, nothing recorded',
    async (_label, data, field) => {
      const event = candidateRegistered(randomUUID());
      const dead = await nextDeadLetter({ ...event, data: { ...event.data, ...data } }, event.type);
      expect(dead.receiveCount).toBe(1);
      expect(dead.reason).toContain(field);
      expect(await h.notifications([`welcome-email:${event.data.candidateId}`])).toEqual([]);
    },
  );

  it('dead-letters an event from a service that is not its producer', async () => {
    const event = { ...candidateRegistered(randomUUID()), source: 'hireflow/media' };
    const dead = await nextDeadLetter(event, event.type);
    expect(dead.reason).toMatch(/source: must be hireflow\/jobs/);
  });
});
