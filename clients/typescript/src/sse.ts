// Server-Sent Events read from a fetch body (EventSource does not exist in
// Node, and sends no Authorization header in browsers): the parsing rules of
// the HTML standard's event stream format.

export interface ServerSentEvent {
  /** The `event:` field; `message` when absent. */
  event: string;
  /** The `data:` lines, joined with newlines. */
  data: string;
  /** The last `id:` seen on the stream, if any. */
  id: string | undefined;
}

/**
 * The events of a `text/event-stream` body, as they arrive. `onRetry` hears
 * each `retry:` hint (milliseconds to wait before reconnecting). Stopping
 * early (a `break`) cancels the body, which closes the connection.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onRetry?: (ms: number) => void,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let lastId: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      // A line ends at CRLF, LF or CR; a CR at the very end may be half of a CRLF still to come.
      for (let match = /\r\n|\n|\r(?!$)/.exec(buffer); match; match = /\r\n|\n|\r(?!$)/.exec(buffer)) {
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id: lastId };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const raw = colon === -1 ? '' : line.slice(colon + 1);
        const text = raw.startsWith(' ') ? raw.slice(1) : raw;
        if (field === 'event') event = text;
        else if (field === 'data') data.push(text);
        else if (field === 'id' && !text.includes('\0')) lastId = text;
        else if (field === 'retry' && /^\d+$/.test(text)) onRetry?.(Number(text));
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
