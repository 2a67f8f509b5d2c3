import type { LoggerOptions } from 'pino';

/** pino options shared by every service: JSON lines, service name, secrets redacted. */
export function loggerOptions(service: string, level: string): LoggerOptions {
  return {
    level,
    base: { service },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.password'],
      censor: '[redacted]',
    },
  };
}
