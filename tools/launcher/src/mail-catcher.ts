import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  /** The Message-ID header: the SMTP span of the send carries the same (`email.message_id`). */
  messageId: string;
  receivedAt: string;
  file: string;
}

export interface MailCatcher {
  smtpUrl: string;
  uiUrl: string;
  messages(): CaughtMail[];
  stop(): Promise<void>;
}

/**
 * A local SMTP server that keeps every message as an .eml file and shows them
 * on a small web page, so a person can read what Hireflow sent. Loopback only.
 */
export async function startMailCatcher(options: {
  smtpPort: number;
  uiPort: number;
  dir: string;
}): Promise<MailCatcher> {
  await mkdir(options.dir, { recursive: true });
  const caught: CaughtMail[] = [];
  let sequence = 0;

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    banner: 'Hireflow local mail catcher',
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        try {
          const raw = Buffer.concat(chunks);
          const parsed = await simpleParser(raw);
          const id = `${Date.now()}-${++sequence}`;
          const file = join(options.dir, `${id}.eml`);
          await writeFile(file, raw);
          caught.push({
            id,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '(no subject)',
            messageId: parsed.messageId ?? '',
            receivedAt: new Date().toISOString(),
            file,
          });
          callback(null, `queued as ${id}`);
        } catch (error) {
          callback(error as Error);
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort, '127.0.0.1', () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const ui = createServer(async (req, res) => {
    try {
      if (req.url === '/api/messages') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(caught));
        return;
      }
      const match = req.url?.match(/^\/messages\/([\w-]+)$/);
      if (match) {
        const mail = caught.find((m) => m.id === match[1]);
        if (!mail) {
          res.writeHead(404).end('not found');
          return;
        }
        const parsed = await simpleParser(await readFile(mail.file));
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            page(
              mail.subject,
              `<p><a href="/">&larr; all mail</a></p><table>${row('From', mail.from)}${row('To', mail.to.join(', '))}${row(
                'Subject',
                mail.subject,
              )}${row('Message-ID', parsed.messageId ?? '')}</table><h3>Text</h3><pre>${escapeHtml(parsed.text ?? '')}</pre>` +
                (parsed.html
                  ? `<h3>HTML</h3><iframe sandbox srcdoc="${escapeHtml(parsed.html)}"></iframe>`
                  : ''),
            ),
          );
        return;
      }
      const rows = [...caught]
        .reverse()
        .map(
          (m) =>
            `<tr><td>${escapeHtml(m.receivedAt)}</td><td>${escapeHtml(m.to.join(', '))}</td><td><a href="/messages/${m.id}">${escapeHtml(m.subject)}</a></td></tr>`,
        )
        .join('');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          page(
            'Hireflow mail',
            `<table><tr><th>Received</th><th>To</th><th>Subject</th></tr>${rows}</table>`,
          ),
        );
    } catch (error) {
      res.writeHead(500).end((error as Error).message);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ui.once('error', reject);
    ui.listen(options.uiPort, '127.0.0.1', () => resolve());
  });
  const uiPort = (ui.address() as AddressInfo).port;

  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    messages: () => [...caught],
    stop: async () => {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await closeHttp(ui);
    },
  };
}

function closeHttp(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const row = (label: string, value: string) => `<tr><th>${label}</th><td>${escapeHtml(value)}</td></tr>`;

function page(title: string, body: string): string {
  return `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>body{font:14px system-ui;margin:2em}td,th{padding:4px 8px;text-align:left;border-bottom:1px solid #ddd}pre{background:#f6f6f6;padding:1em;white-space:pre-wrap}iframe{width:100%;height:30em;border:1px solid #ddd}</style><h1>${escapeHtml(title)}</h1>${body}`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
