import type { AddressInfo } from 'node:net';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { AnyEvent, TopicName } from '@hireflow/contracts';
import { createDatabase, type Database, migrateDatabase } from '@hireflow/db';
import {
  enqueueEvents,
  OutboxRelay,
  outboxMigrations,
  registerEventLogRoutes,
  SnsPublisher,
} from '@hireflow/messaging';
import { createAdminServer, createLogger } from '@hireflow/runtime';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { waitFor } from './wait.ts';

export interface TestProducer {
  db: TestDatabase;
  orm: Database;
  /** Its admin listener on 127.0.0.1 (a free port), serving `GET /internal/events`. */
  adminUrl: string;
  /** Commits the events to the outbox in one transaction; the relay publishes and logs them. */
  commit(events: AnyEvent[]): Promise<void>;
  /** Waits until every one of these events is published and in the log. */
  waitLogged(eventIds: string[], timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A producer of the test's own, made of the parts every producing service
 * uses: its database with the outbox and event log, the relay publishing to
 * the given topics, and an admin listener with the event-log route (behind
 * `adminToken` when given). Replay tests read its log as they would jobs'.
 */
export async function startTestProducer(
  label: string,
  options: { sns: SNSClient; topicArns: Partial<Record<TopicName, string>>; adminToken?: string },
): Promise<TestProducer> {
  const db = await createTestDatabase(label);
  const orm = createDatabase({ url: db.url, migrations: outboxMigrations });
  await migrateDatabase(orm);
  const relay = new OutboxRelay({
    orm,
    publisher: new SnsPublisher(options.sns),
    topicArns: options.topicArns as Record<string, string>,
    pollIntervalMs: 200,
  });
  await relay.start();
  const admin = createAdminServer(
    { ADMIN_TOKEN: options.adminToken },
    { log: createLogger(`${label}-producer`, 'silent') },
  );
  registerEventLogRoutes(admin, { orm });
  await admin.listen({ host: '127.0.0.1', port: 0 });
  const { port } = admin.server.address() as AddressInfo;
  const em = () => orm.em.fork();
  return {
    db,
    orm,
    adminUrl: `http://127.0.0.1:${port}`,
    commit: async (events) => {
      await em().transactional(async (tx) => {
        await enqueueEvents(tx, events);
      });
    },
    waitLogged: async (eventIds, timeoutMs = 20_000) => {
      await waitFor(
        async () => {
          const [row] = await em().execute<{ n: string }[]>(
            'SELECT count(*) AS n FROM event_log WHERE event_id = ANY(?::uuid[])',
            [`{${eventIds.join(',')}}`],
          );
          return Number(row!.n) === eventIds.length;
        },
        { timeoutMs, intervalMs: 50, message: `${eventIds.length} events in the producer's log` },
      );
    },
    close: async () => {
      await relay.close();
      await admin.close();
      await orm.close();
      await db.drop();
    },
  };
}
