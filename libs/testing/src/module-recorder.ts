// A preload (`node --import …/module-recorder.ts`, first) that records the URL
// of every module the process loads, ESM and CommonJS alike, and writes them
// one per line to $LOADED_MODULES_FILE as the process exits. What a process
// loads is what it costs: tests assert on the list, benches count it.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
const loaded = new Set<string>();
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      loaded.add(url);
      return nextLoad(url, context);
    },
  });
  process.on('exit', () => writeFileSync(file, [...loaded].join('\n')));
}
