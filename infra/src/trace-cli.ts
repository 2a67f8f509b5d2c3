// `pnpm trace <traceId>`: a trace as an indented tree, read from the Jaeger
// query API at JAEGER_QUERY_URL (the local trace viewer of `pnpm start`, or a
// real Jaeger). Exit 1 when the trace is unknown or nothing answers.
import { ConfigError, parseConfig } from '@hireflow/config';
import { traceQuerySchema } from './trace-viewer/config.ts';
import { printTrace } from './trace-viewer/print.ts';

let config: ReturnType<typeof parseConfig<typeof traceQuerySchema>>;
try {
  config = parseConfig(traceQuerySchema, process.env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(78);
}
const color = (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR) || process.env.FORCE_COLOR === '1';
const result = await printTrace(config.JAEGER_QUERY_URL, process.argv[2], { color });
process.stdout.write(result.out);
process.stderr.write(result.err);
process.exitCode = result.code;
