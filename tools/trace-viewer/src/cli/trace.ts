// `pnpm trace <traceId>`: a trace as an indented tree, read from the Jaeger
// query API at JAEGER_QUERY_URL (the local trace viewer of `pnpm start`, or a
// real Jaeger). Exit 1 when the trace is unknown or nothing answers.
import { parseConfig } from '@hireflow/config';
import { settingsOrExit } from '@hireflow/config/cli';
import { traceQuerySchema } from '../config.ts';
import { printTrace } from '../print.ts';

const config = settingsOrExit(() => parseConfig(traceQuerySchema, process.env));
const color = (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR) || process.env.FORCE_COLOR === '1';
const result = await printTrace(config.JAEGER_QUERY_URL, process.argv[2], { color });
process.stdout.write(result.out);
process.stderr.write(result.err);
process.exitCode = result.code;
