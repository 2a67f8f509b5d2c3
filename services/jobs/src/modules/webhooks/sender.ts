import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type AddressPolicy, checkedLookup, checkLiteralHost, DeliveryRefused, urlProblem } from './ssrf.ts';

/** Response bodies are read up to this much (the rest is dropped with the connection). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** What the delivery log keeps of a response body. */
export const LOGGED_RESPONSE_BYTES = 1024;

export interface SendResult {
  statusCode: number;
  latencyMs: number;
  /** The first KiB of the response body. */
  body: string;
}

export interface SendOptions extends AddressPolicy {
  timeoutMs: number;
}

/** An idle kept-alive connection is closed after this (and sooner when the receiver says so). */
const IDLE_SOCKET_MS = 4000;
/** An endpoint's agent unused this long is dropped with its connections. */
const IDLE_AGENT_MS = 60_000;

/**
 * Kept-alive connections per endpoint: one agent per (endpoint, origin),
 * whose sockets are made through the checked lookup, so each connection goes
 * to an address checked when it was made and a reused one stays with it (a
 * DNS answer that changes later applies to the next new connection). At most
 * `maxSockets` connections per endpoint: its concurrency.
 */
export class EndpointAgents {
  readonly #agents = new Map<string, { agent: HttpAgent; usedAt: number }>();
  readonly #policy: AddressPolicy;
  readonly #maxSockets: number;
  #sweptAt = Date.now();

  constructor(policy: AddressPolicy, maxSockets: number) {
    this.#policy = policy;
    this.#maxSockets = maxSockets;
  }

  /** The agent of an endpoint's URL (its origin: a changed URL gets a new one). */
  agentFor(endpointId: string, url: URL): HttpAgent {
    const now = Date.now();
    if (now - this.#sweptAt > IDLE_AGENT_MS) this.#sweep(now);
    const key = `${endpointId} ${url.origin}`;
    let entry = this.#agents.get(key);
    if (!entry) {
      const options = {
        keepAlive: true,
        maxSockets: this.#maxSockets,
        maxFreeSockets: this.#maxSockets,
        timeout: IDLE_SOCKET_MS,
        scheduling: 'lifo' as const,
        lookup: checkedLookup(this.#policy) as never,
      };
      entry = {
        agent: url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options),
        usedAt: now,
      };
      this.#agents.set(key, entry);
    }
    entry.usedAt = now;
    return entry.agent;
  }

  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const [key, { agent, usedAt }] of this.#agents) {
      if (now - usedAt <= IDLE_AGENT_MS) continue;
      agent.destroy();
      this.#agents.delete(key);
    }
  }

  close(): void {
    for (const { agent } of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

/**
 * POSTs one delivery. Connects only to an address it checked (the socket's
 * lookup is the check), follows no redirect (a 3xx is an answer like any
 * other), reads at most 64 KiB of the answer and gives up after the timeout.
 * Throws `DeliveryRefused` when the URL or its address is not allowed, and
 * the network's error otherwise. With `agents`, the connection is the
 * endpoint's kept-alive one (made through the same check); a kept-alive
 * connection the receiver closed as the request went out is retried once on
 * a new one (the same request: the receiver got nothing or dedupes it).
 */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
  agents?: { pool: EndpointAgents; endpointId: string },
): Promise<SendResult> {
  try {
    return await sendOnce(url, headers, body, options, agents);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return sendOnce(url, headers, body, options, agents);
  }
}

/** A reused connection was closed by the receiver before any answer (it timed out its idle connection). */
class StaleConnection extends Error {}

function sendOnce(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
  agents: { pool: EndpointAgents; endpointId: string } | undefined,
): Promise<SendResult> {
  const problem = urlProblem(url, options);
  if (problem) return Promise.reject(new DeliveryRefused(`url ${problem}`));
  const target = new URL(url);
  try {
    checkLiteralHost(target.hostname, options);
  } catch (error) {
    return Promise.reject(error);
  }
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const started = performance.now();
  return new Promise<SendResult>((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Hireflow-Webhooks/1',
        },
        // The socket's lookup is the address check: the agent's sockets are all made through it.
        ...(agents
          ? { agent: agents.pool.agentFor(agents.endpointId, target) }
          : { lookup: checkedLookup(options) as never, agent: false }),
        timeout: options.timeoutMs,
      },
      (res) => {
        readCapped(res).then(
          (text) =>
            resolve({
              statusCode: res.statusCode ?? 0,
              latencyMs: Math.round(performance.now() - started),
              body: text,
            }),
          reject,
        );
      },
    );
    // One deadline for the whole exchange: connecting, sending and the answer.
    const deadline = setTimeout(
      () => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    let answered = false;
    req.on('response', () => {
      answered = true;
    });
    req.on('error', (error) => {
      clearTimeout(deadline);
      const code = (error as NodeJS.ErrnoException).code;
      if (req.reusedSocket && !answered && (code === 'ECONNRESET' || code === 'EPIPE'))
        reject(new StaleConnection(error.message));
      else reject(error);
    });
    req.end(body);
  });
}

function readCapped(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).subarray(0, LOGGED_RESPONSE_BYTES).toString('utf8'));
    };
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
      if (size > MAX_RESPONSE_BYTES) {
        // Enough: the status is known; the rest of the body is not read.
        finish();
        res.destroy();
      }
    });
    res.on('end', finish);
    res.on('close', finish);
    res.on('error', (error) => (done ? undefined : reject(error)));
  });
}

/** A short, safe reason for an attempt that got no answer (no URL, no secret, no payload). */
export function failureReason(error: unknown): string {
  if (error instanceof DeliveryRefused) return `refused: ${error.reason}`;
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return (code ? `${code}: ${message}` : message).slice(0, 300);
}
