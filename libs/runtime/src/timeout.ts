// The timeout the messaging package's AWS and Redis calls use, for the runtime's own.
export { TimeoutError, withTimeout } from '@hireflow/messaging/timeout';
