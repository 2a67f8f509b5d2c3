/** `new:subscriber <name> --events a,b [--dir path]`, or what is wrong with it. */
export interface NewSubscriberArgs {
  name: string;
  events: string[];
  dir?: string;
}

export const USAGE =
  'usage: pnpm new:subscriber <name> --events job.posted.v1,candidate.registered.v1 [--dir services/<folder>]';

export function parseArgs(argv: string[]): NewSubscriberArgs | { problems: string[] } {
  const problems: string[] = [];
  const positional: string[] = [];
  let events: string[] | undefined;
  let dir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') ? (arg.split(/=(.*)/s) as [string, string?]) : [arg];
    const value = () => inline ?? argv[++i];
    if (flag === '--events') {
      const list = value();
      events = (list ?? '')
        .split(',')
        .map((type) => type.trim())
        .filter(Boolean);
    } else if (flag === '--dir') {
      dir = value();
      if (!dir) problems.push('dir: --dir needs a path');
    } else if (flag.startsWith('--')) {
      problems.push(`${flag}: unknown option`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1) problems.push('name: give exactly one subscriber name');
  if (!events || events.length === 0)
    problems.push('events: --events needs one or more event types, comma-separated');
  if (problems.length > 0) return { problems };
  return { name: positional[0]!, events: events!, ...(dir === undefined ? {} : { dir }) };
}
