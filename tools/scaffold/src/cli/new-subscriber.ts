// `pnpm new:subscriber <name> --events a,b [--dir services/<folder>]`: a
// subscriber service in this workspace, registered in the topology
// (docs/subscribing.md). Exit 64 on bad arguments, 0 with the next steps.
import { fileURLToPath } from 'node:url';
import { parseArgs, USAGE } from '../args.ts';
import { formatFiles } from '../format.ts';
import { GenerateError, generateSubscriber } from '../generate.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const args = parseArgs(process.argv.slice(2));
if ('problems' in args) {
  for (const problem of args.problems) console.error(problem);
  console.error(USAGE);
  process.exit(64);
}
try {
  const generated = generateSubscriber({ root, ...args });
  const { name, port, events } = generated.subscriber;
  for (const file of generated.files) console.log(`wrote ${file}`);
  if (!formatFiles(root, generated.files)) console.log('(not formatted: run pnpm install, then pnpm format)');
  console.log(`
${name}: inbox ${name}-inbox (DLQ ${name}-inbox-dlq) for ${events.join(', ')}; port ${port}, admin ${port + 1000}.
Next:
  pnpm install                          # links the new package
  pnpm vitest run ${generated.dir}     # its tests
  pnpm start                            # provisions its queue and starts it with the system
Handlers: ${generated.dir}/src/modules/events/handlers.ts`);
} catch (error) {
  if (!(error instanceof GenerateError)) throw error;
  for (const problem of error.problems) console.error(problem);
  process.exit(64);
}
