import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';

/**
 * How the server answers: `accept` every message, or `tempfail` every
 * transaction with a 4xx at MAIL FROM (a provider throttling or in trouble).
 * `stop()` makes it refuse connections altogether.
 */
export type CatcherMode = 'accept' | 'tempfail';

export interface CaughtEmail {
  /** X-Idempotency-Key header: the SHA-256 (hex) of the intent key (`keyDigest`). */
  key: string | undefined;
  messageId: string | undefined;
  /** The id this server gave in its 250 reply (`queued as <id>`). */
  providerId: string;
  envelopeTo: string[];
  /** Epoch ms (sub-ms precision) at which the 250 was given. */
  acceptedAt: number;
  /** Epoch ms at which the server read the message's first bytes (DATA's body): before the parse and any `beforeAccept` delay. */
  receivedAt: number;
  /**
   * The server process's worst event-loop delay (ms) over the second before
   * `receivedAt`: how long bytes could have waited in the socket before they
   * were read. A busy process reads a message the client wrote before some
   * other event the same process timed (a fault it injected) yet reads it
   * after; the delay bounds by how much.
   */
  lagMs: number;
  /** Present when the catcher parses (tests); the benchmark skips parsing. */
  parsed?: ParsedMail;
}

export interface SmtpCatcher {
  readonly port: number;
  readonly url: string;
  readonly emails: CaughtEmail[];
  /** Every RCPT TO the server was asked for, refused or not. */
  readonly recipientsTried: string[];
  mode: CatcherMode;
  /** Recipients refused at RCPT TO with `550 no such user`. */
  refuse: RegExp | undefined;
  /**
   * Awaited after a message is received and before the server answers 250:
   * a slow provider (a delay), or a fault timed right after the accept.
   */
  beforeAccept: ((email: CaughtEmail) => Promise<void> | void) | undefined;
  /** The emails of an intent key (matched by its digest). */
  byKey(key: string): CaughtEmail[];
  /** Open client connections plus messages still being received: 0 once every client is gone. */
  readonly busy: number;
  /** Stops listening and drops open connections: clients get ECONNREFUSED until `restart()`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * This process's worst event-loop delay over about the last second, in ms:
 * the histogram is read and reset every 250 ms, the last four readings kept.
 */
function eventLoopLag() {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const recent: number[] = [];
  const timer = setInterval(() => {
    recent.push(histogram.max / 1e6);
    if (recent.length > 4) recent.shift();
    histogram.reset();
  }, 250);
  timer.unref();
  return {
    current: () => Math.max(histogram.max / 1e6, ...recent),
    stop: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

/** What the emails carry for an intent key (X-Idempotency-Key, Message-ID): its SHA-256 in hex. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Reads X-Idempotency-Key and Message-ID from the header block without a full MIME parse. */
function headerOf(raw: string, name: string): string | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const headers = (end >= 0 ? raw.slice(0, end) : raw).replace(/\r\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(headers);
  return match?.[1]?.trim();
}

/** A real SMTP server on 127.0.0.1 (port 0 unless given) that keeps what it accepts. */
export async function startSmtpCatcher(
  options: { parse?: boolean; port?: number } = {},
): Promise<SmtpCatcher> {
  const parse = options.parse ?? true;
  const emails: CaughtEmail[] = [];
  const recipientsTried: string[] = [];
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;
  let receiving = 0;
  const lag = eventLoopLag();

  const state: {
    mode: CatcherMode;
    refuse: RegExp | undefined;
    beforeAccept: SmtpCatcher['beforeAccept'];
  } = { mode: 'accept', refuse: undefined, beforeAccept: undefined };

  const onData = (
    stream: SMTPServerDataStream,
    envelopeTo: string[],
    done: (err?: Error | null, msg?: string) => void,
  ) => {
    const chunks: Buffer[] = [];
    let receivedAt = 0;
    let lagMs = 0;
    receiving++;
    // A client gone mid-message: the stream is destroyed without 'end'; nothing was accepted.
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (!stream.readableEnded) receiving--;
    });
    stream.on('data', (chunk: Buffer) => {
      if (chunks.length === 0) {
        receivedAt = now();
        lagMs = lag.current();
      }
      chunks.push(chunk);
    });
    stream.on('end', () => {
      const raw = Buffer.concat(chunks);
      const providerId = randomUUID();
      const record = async (): Promise<CaughtEmail> => {
        if (!parse) {
          const text = raw.toString('latin1');
          return {
            key: headerOf(text, 'X-Idempotency-Key'),
            messageId: headerOf(text, 'Message-ID'),
            providerId,
            envelopeTo,
            acceptedAt: 0,
            receivedAt,
            lagMs,
          };
        }
        const parsed = await simpleParser(raw);
        const key = parsed.headers.get('x-idempotency-key');
        return {
          key: typeof key === 'string' ? key : undefined,
          messageId: parsed.messageId,
          providerId,
          envelopeTo,
          acceptedAt: 0,
          receivedAt,
          lagMs,
          parsed,
        };
      };
      record()
        .then(async (email) => {
          await state.beforeAccept?.(email);
          return email;
        })
        .then(
          (email) => {
            email.acceptedAt = now();
            emails.push(email);
            done(null, `OK: queued as ${providerId}`);
          },
          (error: Error) => done(smtpError(554, `cannot parse: ${error.message}`)),
        )
        .finally(() => receiving--);
    });
  };

  const listen = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 100,
      onMailFrom(_address, _session, callback) {
        if (state.mode === 'tempfail') return callback(smtpError(451, 'Temporary local problem, try later'));
        callback();
      },
      onRcptTo(address, _session, callback) {
        recipientsTried.push(address.address);
        if (state.refuse?.test(address.address)) return callback(smtpError(550, 'No such user here'));
        callback();
      },
      onData(stream, session, callback) {
        onData(
          stream,
          session.envelope.rcptTo.map((a) => a.address),
          callback,
        );
      },
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server!.server.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };

  const stop = async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    emails,
    recipientsTried,
    get mode() {
      return state.mode;
    },
    set mode(mode: CatcherMode) {
      state.mode = mode;
    },
    get refuse() {
      return state.refuse;
    },
    set refuse(pattern: RegExp | undefined) {
      state.refuse = pattern;
    },
    get beforeAccept() {
      return state.beforeAccept;
    },
    set beforeAccept(hook: SmtpCatcher['beforeAccept']) {
      state.beforeAccept = hook;
    },
    byKey: (key) => emails.filter((e) => e.key === keyDigest(key)),
    get busy() {
      return (server?.connections.size ?? 0) + receiving;
    },
    stop,
    restart: async () => {
      if (!server) await listen();
    },
    close: async () => {
      lag.stop();
      await stop();
    },
  };
}
