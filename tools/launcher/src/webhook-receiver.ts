import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request that reached the receiver, as its page and `/api/deliveries` show it. */
export interface ReceivedDelivery {
  /** The receiver's own number for it (1, 2, …): its page is `/deliveries/<seq>`. */
  seq: number;
  /** The URL path it was POSTed to: which endpoint delivered it. */
  path: string;
  webhookId: string;
  /** The body's `type` (`posting.matched`, …), `''` when the body is no JSON object with one. */
  type: string;
  receivedAt: string;
  /** The how-many-th arrival of this `webhook-id` (2 and up: a redelivery, the same delivery again). */
  copy: number;
  /** From the delivery's `traceparent` header, when it carries one. */
  traceId: string | undefined;
  /** The trace in the local trace viewer, when the receiver knows the viewer. */
  traceUrl: string | undefined;
  /** `true`: a signature matched a secret of the path; `false`: none did; `null`: no secret for the path yet. */
  verified: boolean | null;
  /** `verified`, `no secret for <path>`, or why `standardwebhooks` refused it. */
  verification: string;
  /** The parsed body (`{ type, timestamp, data }`), when it is JSON. */
  body: unknown;
}

export interface WebhookReceiver {
  /** Base URL; an endpoint URL is any path under it but `/api/` (say `<url>/in/<name>`). */
  url: string;
  deliveries(): ReceivedDelivery[];
  /** Verifies deliveries to `path` with `secret` from now on (and those already there without one). */
  addSecret(path: string, secret: string): void;
  stop(): Promise<void>;
}

/** Kept in memory, newest last; older ones are dropped. */
const MAX_KEPT = 1000;
const MAX_BODY_BYTES = 256 * 1024;

interface Kept extends ReceivedDelivery {
  raw: string;
  headers: Record<string, string>;
}

/**
 * A local webhook receiver, as the mail catcher is for email: endpoints on
 * 127.0.0.1 that answer 204 to every delivery, verify it with the
 * `standardwebhooks` package and the endpoint's secret (handed over by
 * `POST /api/endpoints {path, secret}`: the secret is shown once, to whoever
 * registered the endpoint), and a page listing what arrived.
 */
export async function startWebhookReceiver(options: {
  port: number;
  /** The local trace viewer's page: each delivery's `traceparent` links there. */
  traceUiUrl?: string | undefined;
}): Promise<WebhookReceiver> {
  const kept: Kept[] = [];
  const secrets = new Map<string, string[]>();
  const copies = new Map<string, number>();
  let sequence = 0;

  const verify = (delivery: Kept) => {
    const known = secrets.get(delivery.path);
    if (!known) {
      delivery.verified = null;
      delivery.verification = `no secret for ${delivery.path}`;
      return;
    }
    let reason = '';
    for (const secret of known) {
      try {
        new Webhook(secret).verify(delivery.raw, delivery.headers);
        delivery.verified = true;
        delivery.verification = 'verified';
        return;
      } catch (error) {
        reason = (error as Error).message;
      }
    }
    delivery.verified = false;
    delivery.verification = `failed: ${reason}`;
  };

  const receive = (req: IncomingMessage, raw: string, res: ServerResponse) => {
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : (value ?? '');
    };
    const path = (req.url ?? '/').split('?')[0]!;
    const webhookId = header('webhook-id');
    const copy = (copies.get(webhookId) ?? 0) + 1;
    copies.set(webhookId, copy);
    const traceId = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/.exec(header('traceparent'))?.[1];
    const body = parseJson(raw);
    const type = (body as { type?: unknown } | undefined)?.type;
    const delivery: Kept = {
      seq: ++sequence,
      path,
      webhookId,
      type: typeof type === 'string' ? type : '',
      receivedAt: new Date().toISOString(),
      copy,
      traceId,
      traceUrl: traceId && options.traceUiUrl ? `${options.traceUiUrl}/trace/${traceId}` : undefined,
      verified: null,
      verification: '',
      body,
      raw,
      headers: Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'traceparent'].map((h) => [h, header(h)]),
      ),
    };
    verify(delivery);
    kept.push(delivery);
    if (kept.length > MAX_KEPT) kept.shift();
    res.writeHead(204).end();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        if (size > MAX_BODY_BYTES) {
          res.writeHead(413).end();
          return;
        }
        route(req, Buffer.concat(chunks).toString('utf8'), res);
      } catch (error) {
        res.writeHead(500).end((error as Error).message);
      }
    });
  });

  const addSecret = (path: string, secret: string) => {
    secrets.set(path, [...(secrets.get(path) ?? []), secret]);
    for (const delivery of kept) if (delivery.path === path && delivery.verified !== true) verify(delivery);
  };

  const route = (req: IncomingMessage, raw: string, res: ServerResponse) => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && url === '/api/endpoints') {
      const given = parseJson(raw) as { path?: unknown; secret?: unknown } | undefined;
      const { path, secret } = given ?? {};
      if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('/api/')) {
        res.writeHead(400).end('path: a URL path of this receiver, not under /api/');
        return;
      }
      if (typeof secret !== 'string' || !secret.startsWith('whsec_')) {
        res.writeHead(400).end('secret: the endpoint secret, whsec_…');
        return;
      }
      addSecret(path, secret);
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'POST' && !url.startsWith('/api/')) {
      receive(req, raw, res);
      return;
    }
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (url === '/api/deliveries') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(kept.map(publicView)));
      return;
    }
    const one = /^\/deliveries\/(\d+)$/.exec(url);
    if (one) {
      const delivery = kept.find((d) => d.seq === Number(one[1]));
      if (!delivery) {
        res.writeHead(404).end('not found');
        return;
      }
      html(res, `Delivery ${delivery.seq}`, deliveryPage(delivery));
      return;
    }
    if (url === '/') {
      html(res, 'Hireflow webhooks', listPage(kept, server));
      return;
    }
    res.writeHead(404).end('not found');
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deliveries: () => kept.map(publicView),
    addSecret,
    stop: () => closeHttp(server),
  };
}

function publicView({ raw: _raw, headers: _headers, ...delivery }: Kept): ReceivedDelivery {
  return { ...delivery };
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function listPage(kept: Kept[], server: Server): string {
  const { port } = server.address() as AddressInfo;
  const rows = [...kept]
    .reverse()
    .map(
      (d) =>
        `<tr><td><a href="/deliveries/${d.seq}">${d.seq}</a></td><td>${escapeHtml(d.receivedAt)}</td><td>${escapeHtml(d.path)}</td><td>${escapeHtml(d.type)}</td><td><code>${escapeHtml(d.webhookId)}</code>${d.copy > 1 ? ` (copy ${d.copy})` : ''}</td><td class="${d.verified === true ? 'ok' : d.verified === false ? 'bad' : ''}">${escapeHtml(d.verification)}</td><td>${traceCell(d)}</td></tr>`,
    )
    .join('');
  return (
    `<p>Register an endpoint with a URL under http://127.0.0.1:${port}/ (say <code>/in/my-app</code>), then hand its secret over: <code>POST /api/endpoints {"path":"/in/my-app","secret":"whsec_…"}</code>. Every delivery is answered 204.</p>` +
    `<table><tr><th>#</th><th>Received</th><th>Path</th><th>Type</th><th>webhook-id</th><th>Signature</th><th>Trace</th></tr>${rows}</table>`
  );
}

function deliveryPage(d: Kept): string {
  const row = (label: string, value: string) => `<tr><th>${label}</th><td>${value}</td></tr>`;
  return (
    `<p><a href="/">&larr; all deliveries</a></p><table>${row('Received', escapeHtml(d.receivedAt))}${row('Path', escapeHtml(d.path))}${row(
      'Type',
      escapeHtml(d.type),
    )}${row('Signature', escapeHtml(d.verification))}${row('Trace', traceCell(d))}${Object.entries(d.headers)
      .map(([name, value]) => row(name, `<code>${escapeHtml(value)}</code>`))
      .join('')}</table>` +
    `<h3>Body</h3><pre>${escapeHtml(d.body === undefined ? d.raw : JSON.stringify(d.body, null, 2))}</pre>`
  );
}

function traceCell(d: ReceivedDelivery): string {
  if (d.traceUrl) return `<a href="${escapeHtml(d.traceUrl)}">${d.traceId}</a>`;
  return d.traceId ?? '';
}

function html(res: ServerResponse, title: string, body: string) {
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(
      `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>body{font:14px system-ui;margin:2em}td,th{padding:4px 8px;text-align:left;border-bottom:1px solid #ddd}pre{background:#f6f6f6;padding:1em;white-space:pre-wrap}.ok{color:#070}.bad{color:#b00}</style><h1>${escapeHtml(title)}</h1>${body}`,
    );
}

function closeHttp(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
