import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildAsyncApi, eventTypes, renderAsyncApi } from '../src/index.ts';

describe('AsyncAPI document', () => {
  it('is committed and up to date (regenerate: pnpm contracts:generate)', async () => {
    const committed = await readFile(new URL('../schemas/asyncapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(renderAsyncApi());
  });

  it('has a channel per topic, a message per event type, and documents the attributes', () => {
    const doc = buildAsyncApi() as {
      asyncapi: string;
      channels: Record<string, { messages: Record<string, unknown> }>;
      components: { messages: Record<string, { headers: { properties: Record<string, unknown> } }> };
    };
    expect(doc.asyncapi).toBe('3.0.0');
    expect(Object.keys(doc.channels).sort()).toEqual(['jobs-events', 'matching-events', 'media-events']);
    const channelMessages = Object.values(doc.channels).flatMap((c) => Object.keys(c.messages));
    expect(channelMessages.sort()).toEqual([...eventTypes].sort());
    for (const type of eventTypes) {
      expect(Object.keys(doc.components.messages[type]!.headers.properties)).toEqual([
        'type',
        'traceparent',
        'tracestate',
        'baggage',
      ]);
    }
  });
});
