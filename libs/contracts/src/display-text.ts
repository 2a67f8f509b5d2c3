import { hasControlCharacter, text } from './text.ts';

// Display text: what a tenant types that a stranger reads in an email (a
// candidate's name and headline, a posting's title). One rule, applied by the
// public API and by the event catalog alike (docs/security.md, API6), so an
// event injected past the API is poison, not an email:
// - judged in NFKC form, and stored in it (full-width `ｅｖｉｌ．ｃｏｍ` is `evil.com`);
// - no link: no scheme, no email address, no dotted host of any top-level
//   domain (`bit.ly/abc`, `scam.net`, `evil .com`), no IP address;
// - no bidi embedding, override or isolate (U+202A–U+202E, U+2066–U+2069),
//   which reorders what a reader sees;
// - no C0 or C1 control character and no line or paragraph separator
//   (U+0085, U+2028, U+2029), which break a subject line.

export type DisplayTextProblem = 'link' | 'bidi' | 'control';

export const DISPLAY_TEXT_MESSAGES: Record<DisplayTextProblem, string> = {
  link: 'must not contain a link, a host name, an IP address or an email address',
  bidi: 'must not contain bidirectional override characters',
  control: 'must not contain control characters or line separators',
};

const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;
// C0 and DEL, C1 (U+0085 among them), line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
// Invisible format characters (zero-width space, joiners, soft hyphen) are
// dropped before looking for a host, so `evil\u200b.com` is `evil.com`.
const INVISIBLE = /\p{Cf}/gu;
// Dots an address bar takes as a dot: NFKC leaves the ideographic full stop.
const OTHER_DOTS = /[\u3002]/gu;

const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?`;
// A dotted host: labels joined by dots, the last one a possible top-level
// domain (two or more letters, or punycode); a space before the last dot
// still reads as one (`evil .com`), a space after it does not (a sentence).
const DOTTED_HOST = new RegExp(
  String.raw`(?<![\p{L}\p{N}])${LABEL}(?:\.${LABEL})*\s*\.(?:\p{L}{2,63}|xn--[a-z0-9-]+)(?![\p{L}\p{N}])`,
  'giu',
);
const IPV4 = /(?<![\p{N}.])\d{1,3}(?:\.\d{1,3}){3}(?![\p{N}])/u;
const IPV6_LITERAL = /\[[0-9a-f]*:[0-9a-f:.]*\]/iu;
const SCHEME = /\b[a-z][a-z0-9+.-]*:\/\//iu;
const EMAIL_ADDRESS = /[^\s@]+@[^\s@]+\.[^\s@]+/u;

// Dotted words that are not hosts. `.js` is no top-level domain; the rest are
// technology names and degrees written the one way they are written.
const NOT_A_TLD = new Set(['js']);
const KNOWN_NAMES = new Set(['asp.net', 'ado.net', 'vb.net', 'socket.io']);
const DEGREE = /^[BM]\.(?:Sc|Eng|Ed|Phil|Tech|Des|Arch|Pharm|Mus)$/u;
// `.NET` after a space (`C# and .NET`), in its own capitals.
const DOT_NET = /^\S+\s+\.NET$/u;

function isNamedThing(match: string): boolean {
  const compact = match.replace(/\s+/gu, '');
  const tld = compact.slice(compact.lastIndexOf('.') + 1).toLowerCase();
  return (
    NOT_A_TLD.has(tld) ||
    KNOWN_NAMES.has(compact.toLowerCase()) ||
    DEGREE.test(compact) ||
    DOT_NET.test(match)
  );
}

/** Whether text names a place on the network: a URL, a host, an IP address or an email address. */
export function containsLinkOrAddress(value: string): boolean {
  const s = value.normalize('NFKC').replace(INVISIBLE, '').replace(OTHER_DOTS, '.');
  if (SCHEME.test(s) || EMAIL_ADDRESS.test(s) || IPV4.test(s) || IPV6_LITERAL.test(s)) return true;
  for (const match of s.matchAll(DOTTED_HOST)) {
    if (!isNamedThing(match[0])) return true;
  }
  return false;
}

/** What is wrong with a display text, in NFKC form; undefined when nothing is. */
export function displayTextProblem(value: string): DisplayTextProblem | undefined {
  const s = value.normalize('NFKC');
  if (CONTROL.test(s)) return 'control';
  if (BIDI_CONTROL.test(s)) return 'bidi';
  if (containsLinkOrAddress(s)) return 'link';
  return undefined;
}

/**
 * A display text of at most `max` characters: `text`'s rules (trimmed, no
 * control character, valid Unicode), stored in NFKC form, and no link, bidi
 * override or line separator (see the top of this file).
 */
export const displayText = (max: number, options: { min?: number } = {}) =>
  text(max, options)
    .overwrite((value) => value.normalize('NFKC').trim())
    .max(max, `must be at most ${max} characters`)
    .superRefine((value, ctx) => {
      if (hasControlCharacter(value, false)) return; // `text` has said so: one issue per field
      const problem = displayTextProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: DISPLAY_TEXT_MESSAGES[problem], input: value });
    });
