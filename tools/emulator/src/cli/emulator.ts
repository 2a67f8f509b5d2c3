// Runs the SNS/SQS/S3 emulator on its own: `node tools/emulator/src/cli/emulator.ts`.
// EMULATOR_HOST defaults to loopback; the compose file sets 0.0.0.0 inside
// its container network.
import { startEmulator } from '../emulator.ts';

const port = Number(process.env.EMULATOR_PORT ?? 4566);
const host = process.env.EMULATOR_HOST ?? '127.0.0.1';
const region = process.env.AWS_REGION ?? 'eu-west-1';
const emulator = await startEmulator({ port, host, region });
console.log(`SNS/SQS emulator listening on ${emulator.endpoint} (region ${region})`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    emulator.stop().then(() => process.exit(0));
  });
}
