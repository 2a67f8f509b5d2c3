// `pnpm synth` (cdk.json: `node src/cli/synth.ts`): writes cdk.out/<stack>.template.json.
// Offline: no account, no region, no lookups (the stack is environment-agnostic).

import { buildApp } from '../app.ts';
import { ConfigError } from '../config.ts';

try {
  buildApp().app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message.replace('Invalid configuration', 'Invalid CDK context (-c key=value)'));
  process.exitCode = 78;
}
