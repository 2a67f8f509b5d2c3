import { describe, expect, it } from 'vitest';
import { containsLinkOrAddress, displayText, displayTextProblem } from './display-text.ts';

/** The bypasses of issue 25 and their cousins: each must be refused. */
const DISPLAY_TEXT_BYPASSES: [label: string, value: string][] = [
  ['a shortener', 'Ada bit.ly/abc'],
  ['a .net host', 'Ada from scam.net'],
  ['a .io host', 'evil.io'],
  ['an IP address', 'log in at 203.0.113.9/login'],
  ['a space before the dot', 'visit evil .com'],
  ['full-width letters and dot', 'ｅｖｉｌ．ｃｏｍ'],
  ['an ideographic full stop', 'evil。com'],
  ['a zero-width space in the host', 'evil\u200b.com'],
  ['a scheme', 'Click https://evil.example/login'],
  ['www.', 'www.cheap-meds.biz'],
  ['an email address', 'write to bob+1@victim.test'],
  ['a new gTLD', 'Engineer at jobs.click'],
  ['an IPv6 literal', 'see [2001:db8::1]'],
  ['a right-to-left override', 'Ada \u202eevil'],
  ['a bidi isolate', 'Ada \u2066x\u2069'],
  ['a line separator', 'Ada\u2028Subject: x'],
  ['a paragraph separator', 'Ada\u2029x'],
  ['NEL (C1)', 'Ada\u0085x'],
  ['another C1 control', 'Ada\u009bx'],
];

describe('display text', () => {
  it.each(DISPLAY_TEXT_BYPASSES)('refuses %s', (_label, value) => {
    expect(displayTextProblem(value), value).toBeDefined();
    const parsed = displayText(200).safeParse(value);
    expect(parsed.success, value).toBe(false);
  });

  it('names what is wrong', () => {
    expect(displayTextProblem('a \u202e b')).toBe('bidi');
    expect(displayTextProblem('a\u2028b')).toBe('control');
    expect(displayTextProblem('evil .com')).toBe('link');
    expect(displayText(200).safeParse('a\u0085b').error?.issues[0]?.message).toMatch(/control characters/);
  });

  it.each([
    'Node.js developer',
    'C# and .NET',
    'ASP.NET Core, Vue.js, socket.io',
    'Senior engineer (m/f/d)',
    'Ada Lovelace',
    'R&D lead',
    'M.Sc. in Computer Science, Ph.D.',
    'Python 3.12 and Postgres 17.2',
    'Berlin. Remote possible',
    'Ingeniera 👩‍💻 مهندس',
    'e.g. Go, i.e. fast',
    'Zürich',
  ])('accepts %s', (value) => {
    expect(displayTextProblem(value), value).toBeUndefined();
    expect(displayText(200).safeParse(value).success, value).toBe(true);
  });

  it('stores the NFKC form, trimmed', () => {
    expect(displayText(200).parse(' ﬁne Ｄｅｖ ')).toBe('fine Dev');
  });

  it('judges links on the NFKC form', () => {
    expect(containsLinkOrAddress('ｂｉｔ．ｌｙ／ａｂｃ')).toBe(true);
    expect(containsLinkOrAddress('Senior engineer')).toBe(false);
  });
});
