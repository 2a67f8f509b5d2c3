import { PermanentError } from '@hireflow/messaging';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import { type AcceptedEmail, keyDigest, messageIdFor } from '../intents/message-id.ts';
import type { RenderedEmail } from './templates.ts';

export { type AcceptedEmail, keyDigest, messageIdFor };

const tracer = trace.getTracer('@hireflow/notifications');

const IDEMPOTENCY_HEADER = 'X-Idempotency-Key';

export interface OutgoingEmail extends RenderedEmail {
  /** The intent key: it travels to the provider hashed, as Message-ID and X-Idempotency-Key. */
  key: string;
  to: string;
  /** RFC 8058 one-click unsubscribe: sent as List-Unsubscribe with List-Unsubscribe-Post. */
  unsubscribeUrl?: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; throws PermanentError when it never will. */
  send(email: OutgoingEmail): Promise<AcceptedEmail>;
  close(): void;
}

export interface MailerOptions {
  url: string;
  from: string;
  poolSize: number;
  timeoutMs: number;
}

const address = z.email().max(254);

/** nodemailer over a pool of SMTP connections to one server (the provider, or the local catcher). */
export function createMailer(options: MailerOptions): Mailer {
  const transport = nodemailer.createTransport({
    url: options.url,
    pool: true,
    maxConnections: options.poolSize,
    maxMessages: 1000,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    // Templates never attach files or URLs: refuse them rather than read the disk.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const smtpHost = new URL(options.url).hostname;
  return {
    async send(email) {
      if (!address.safeParse(email.to).success) {
        // The address itself stays out of the error: it ends up in logs and the notification log's error.
        throw new PermanentError('the recipient is not a valid email address');
      }
      const messageId = messageIdFor(email.key);
      // nodemailer has no instrumentation: the SMTP hop gets its own client span
      // in the task's trace (docs/design.md: … → worker → DB and SMTP spans).
      return tracer.startActiveSpan(
        'smtp send',
        { kind: SpanKind.CLIENT, attributes: { 'server.address': smtpHost, 'email.message_id': messageId } },
        async (span) => {
          try {
            const info = await transport.sendMail({
              from: options.from,
              to: email.to,
              subject: email.subject,
              text: email.text,
              html: email.html,
              messageId,
              headers: {
                [IDEMPOTENCY_HEADER]: keyDigest(email.key),
                ...(email.unsubscribeUrl
                  ? {
                      'List-Unsubscribe': `<${email.unsubscribeUrl}>`,
                      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
                    }
                  : {}),
              },
            });
            return { messageId, providerMessageId: providerIdOf(String(info.response ?? '')) };
          } catch (error) {
            const classified = classifySmtpError(error);
            span.recordException(classified);
            span.setStatus({ code: SpanStatusCode.ERROR, message: classified.message });
            throw classified;
          } finally {
            span.end();
          }
        },
      );
    },
    close: () => transport.close(),
  };
}

function providerIdOf(response: string): string {
  const queued = /queued as\s+<?([^\s>]+)>?/i.exec(response) ?? /\bid[=:]\s*<?([^\s>]+)>?/i.exec(response);
  return (queued?.[1] ?? response).slice(0, 200);
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
  message?: string;
}

/**
 * A 5xx refusing the recipient (RCPT) or the message (DATA) will be refused
 * again: permanent, no retry. Everything else is retried with backoff:
 * connection refused, timeouts, every 4xx, and 5xx at connection, MAIL FROM
 * or AUTH, which say our side is misconfigured, so fixing the configuration
 * delivers what is still queued.
 */
export function classifySmtpError(error: unknown): Error {
  const e = (error ?? {}) as SmtpError;
  const code = e.responseCode;
  // Only a 5xx at RCPT or DATA is about this message; nodemailer reports a
  // MAIL FROM refusal as EENVELOPE too, but that one is about our sender.
  const refused = code !== undefined && code >= 500 && code < 600 && /^(RCPT|DATA)/i.test(e.command ?? '');
  // nodemailer's own envelope check (no server reply): the recipient cannot be sent to.
  const badEnvelope = e.code === 'EENVELOPE' && code === undefined && /recipient/i.test(e.message ?? '');
  if (refused || badEnvelope) {
    return new PermanentError(`SMTP ${code ?? e.code} (${e.command ?? 'send'}): ${e.message ?? 'refused'}`, {
      cause: error,
    });
  }
  return error instanceof Error ? error : new Error(String(error));
}
