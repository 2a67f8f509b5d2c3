// Screenshots a trace viewer page with headless Chromium (Debian's
// `chromium` package), to check how the page looks:
//   node tools/trace-viewer/src/cli/screenshot.ts out.png             a synthetic multi-service trace
//   node tools/trace-viewer/src/cli/screenshot.ts out.png detail      the same, its failing span opened
//   node tools/trace-viewer/src/cli/screenshot.ts out.png list        the list page of the same
//   node tools/trace-viewer/src/cli/screenshot.ts out.png http://127.0.0.1:16686/trace/<id>   any page
// WINDOW_SIZE=1400,1100 sets the page size (default 1400,900). docs/img/trace-waterfall.png
// is a `pnpm demo` job trace at /trace/<id>?story=1, 1400,1100.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { syntheticTrace } from '../sample-trace.ts';
import { startTraceViewer } from '../viewer.ts';

const [out = 'trace-viewer.png', target = 'trace'] = process.argv.slice(2);
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';

let viewer: Awaited<ReturnType<typeof startTraceViewer>> | undefined;
let url = target;
if (!/^https?:\/\//.test(target)) {
  viewer = await startTraceViewer({ otlpPort: 0, uiPort: 0 });
  const traceId = randomBytes(16).toString('hex');
  const { request, failedSpanId } = syntheticTrace(traceId);
  const response = await fetch(`${viewer.otlpEndpoint}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  if (!response.ok) throw new Error(`the viewer refused the synthetic trace: ${response.status}`);
  url =
    target === 'list'
      ? `${viewer.uiUrl}/`
      : `${viewer.uiUrl}/trace/${traceId}${target === 'detail' ? `?uiFind=${failedSpanId}` : ''}`;
}
const profile = await mkdtemp(join(tmpdir(), 'hireflow-chromium-'));
try {
  await promisify(execFile)(chromium, [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
    `--screenshot=${resolve(out)}`,
    `--window-size=${process.env.WINDOW_SIZE ?? '1400,900'}`,
    url,
  ]);
  console.log(`${url} → ${resolve(out)}`);
} finally {
  await rm(profile, { recursive: true, force: true });
  await viewer?.stop();
}
