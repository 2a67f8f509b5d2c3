import { randomUUID } from 'node:crypto';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MatchingHarness, startMatchingHarness } from './harness.ts';
import { candidate, fitting, role } from './profiles.ts';

let h: MatchingHarness;
let tracing: ReturnType<typeof startTestTracing>;
beforeAll(async () => {
  tracing = startTestTracing();
  h = await startMatchingHarness('matching-trace');
  await h.startWorker();
});
afterAll(async () => {
  await h?.close();
  await tracing?.stop();
});

describe('one trace from the posting to the events matching writes', () => {
  it('continues the producer’s trace through the inbox, the match queue and the outbox', async () => {
    const tenantId = randomUUID();
    const candidates = fitting.map((p) => candidate(tenantId, p));
    await Promise.all(candidates.map((event) => h.publish(event)));
    await h.waitForComputations({ tenantId, kind: 'candidate' }, 3);

    const posted = role(tenantId);
    // The "request" of the job board: SNS takes its context in the message attributes.
    const traceId = await trace
      .getTracer('test')
      .startActiveSpan('POST /v1/jobs', { kind: SpanKind.SERVER }, async (span) => {
        await h.publish(posted);
        span.end();
        return span.spanContext().traceId;
      });
    await h.waitForComputations({ id: posted.data.jobId });

    const spans = tracing.exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const byName = (name: string) => spans.find((s) => s.name === name);
    const process = spans.find((s) => s.name.startsWith('process ') && s.name.endsWith('matching-inbox'));
    const compute = byName('match posting');
    expect(process?.parentSpanContext).toBeDefined();
    expect(compute, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(byName('embed posting')?.parentSpanContext?.spanId).toBe(compute!.spanContext().spanId);
    expect(compute!.attributes).toMatchObject({
      'hireflow.tenant_id': tenantId,
      'hireflow.posting_id': posted.data.jobId,
      'matching.candidates': 3,
      'matching.matches.new': 3,
    });
    // Ids and counts only: nothing of a profile's text.
    const values = spans.flatMap((s) => Object.values(s.attributes).map(String)).join(' ');
    expect(values).not.toContain('TypeScript');

    // The events written by the computation carry its context on to their consumers.
    const rows = await h.deps.orm.em
      .fork()
      .execute<{ traceparent: string | null }[]>(
        "SELECT traceparent FROM outbox WHERE payload->'data'->>'jobId' = ?",
        [posted.data.jobId],
      );
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.traceparent?.split('-')[1]).toBe(traceId);
  });
});
