import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
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

/**
 * POSTs one delivery. Connects only to an address it checked (the socket's
 * lookup is the check), follows no redirect (a 3xx is an answer like any
 * other), reads at most 64 KiB of the answer and gives up after the timeout.
 * Throws `DeliveryRefused` when the URL or its address is not allowed, and
 * the network's error otherwise.
 */
export function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
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
        lookup: checkedLookup(options) as never,
        // Each attempt on its own connection: a pooled socket would skip the address check.
        agent: false,
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
    req.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
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
