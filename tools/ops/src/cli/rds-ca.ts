// `node tools/ops/src/cli/rds-ca.ts [file]`: writes the RDS CA bundle (PEM) to
// `file`, or to stdout. The Dockerfile runs it to ship /app/rds-ca.pem.
import { writeFileSync } from 'node:fs';
import { rdsCaBundle } from '../rds-ca.ts';

const [file] = process.argv.slice(2);
const bundle = rdsCaBundle();
if (file) writeFileSync(file, bundle, { mode: 0o644 });
else process.stdout.write(bundle);
