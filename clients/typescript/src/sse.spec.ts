import { describe, expect, it } from 'vitest';
import { readServerSentEvents, type ServerSentEvent } from './sse.ts';

/** A body that arrives in these chunks. */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function read(chunks: string[]) {
  const retries: number[] = [];
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(body(chunks), (ms) => retries.push(ms))) events.push(event);
  return { events, retries };
}

describe('readServerSentEvents', () => {
  it('reads events, joins data lines, skips comments and keeps the last id', async () => {
    const { events } = await read([
      'id: 1\nevent: status\ndata: {"a":1}\n\n',
      ': keep-alive\n\n',
      'data: first\ndata: second\n\n',
    ]);
    expect(events).toEqual([
      { event: 'status', data: '{"a":1}', id: '1' },
      { event: 'message', data: 'first\nsecond', id: '1' },
    ]);
  });

  it('handles lines split across chunks and CRLF or CR line ends', async () => {
    const { events } = await read(['event: sta', 'tus\r', '\ndata: x\r\r', 'data:y\n', '\n']);
    expect(events).toEqual([
      { event: 'status', data: 'x', id: undefined },
      { event: 'message', data: 'y', id: undefined },
    ]);
  });

  it('reports retry hints and ignores a block without data', async () => {
    const { events, retries } = await read(['retry: 3000\n\n', 'retry: soon\n\n']);
    expect(events).toEqual([]);
    expect(retries).toEqual([3000]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: 1\n\ndata: 2\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readServerSentEvents(stream)) {
      expect(event.data).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
