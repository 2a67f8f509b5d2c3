// The few HTTP calls the demo makes, as a client of the public APIs would.

export interface Accepted {
  id: string;
  status: string;
  traceId: string | null;
}

export class DemoError extends Error {}

/** An answer other than the one a call expects. */
export class UnexpectedAnswer extends DemoError {
  readonly status: number;

  constructor(what: string, status: number, body: string) {
    super(`${what} answered ${status}: ${body}`);
    this.status = status;
  }
}

export interface ApiClient {
  /** POST with a JSON body; the answer must be 202 Accepted. */
  accept(base: string, path: string, body: unknown): Promise<Accepted>;
  /** POST multipart; the answer must be 202 Accepted. */
  acceptForm(base: string, path: string, form: FormData): Promise<Accepted>;
  get<T>(base: string, path: string): Promise<T>;
  /** Reads a server-sent event stream until `done` says so; returns each event's data. */
  follow<T>(base: string, path: string, done: (data: T) => boolean, timeoutMs: number): Promise<T[]>;
}

export function apiClient(key: string): ApiClient {
  const auth = { authorization: `Bearer ${key}` };
  const accepted = async (response: Response, what: string): Promise<Accepted> => {
    if (response.status !== 202) throw new UnexpectedAnswer(what, response.status, await response.text());
    return (await response.json()) as Accepted;
  };
  return {
    async accept(base, path, body) {
      const response = await fetch(new URL(path, base), {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return accepted(response, `POST ${path}`);
    },
    async acceptForm(base, path, form) {
      const response = await fetch(new URL(path, base), { method: 'POST', headers: auth, body: form });
      return accepted(response, `POST ${path}`);
    },
    async get(base, path) {
      const response = await fetch(new URL(path, base), { headers: auth });
      if (!response.ok) throw new UnexpectedAnswer(`GET ${path}`, response.status, await response.text());
      return (await response.json()) as never;
    },
    async follow(base, path, done, timeoutMs) {
      const response = await fetch(new URL(path, base), {
        headers: { ...auth, accept: 'text/event-stream' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status !== 200 || !response.body) {
        throw new UnexpectedAnswer(`GET ${path}`, response.status, await response.text());
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const seen: unknown[] = [];
      let buffer = '';
      try {
        while (true) {
          const { value, done: ended } = await reader.read();
          if (ended) throw new DemoError(`${path} ended before it said what the demo waits for`);
          buffer += value;
          const lines = buffer.split('\n');
          buffer = lines.pop()!;
          for (const line of lines) {
            if (!line.startsWith('data:')) continue;
            const data = JSON.parse(line.slice(5));
            seen.push(data);
            if (done(data)) return seen as never[];
          }
        }
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') {
          throw new DemoError(`${path} did not say so within ${timeoutMs / 1000} s`);
        }
        throw error;
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    },
  };
}

/** Asks `check` every `everyMs` until it returns a value, or `undefined` once `timeoutMs` has passed. */
export async function poll<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
