// Text → the words a bag-of-features embedding counts. Unicode NFKC and
// lowercase first; then the spellings of one technology are made to agree
// ("Node.js" / "node.js" / "nodejs" / "node" → "nodejs", "JS" → "javascript")
// while "c++", "c#" and "f#" keep the symbols that make them languages.
import { canonicalSkillKey } from '../skills/aliases.ts';
import { normaliseText } from '../skills/spelling.ts';

// Function words, and the boilerplate every job ad and headline shares: left
// in, they make a warehouse posting and a TypeScript posting look alike.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after all also am an and any are as at be been being both but by can could did do does ' +
    'doing each etc few for from further had has have having he her here hers him his how i if in into is it ' +
    'its itself just me more most my no nor not now of off on once only or other our ours out over own per ' +
    're s same she should so some such t than that the their theirs them then there these they this those ' +
    'through to too under until up us very was we were what when where which while who whom why will with ' +
    'within would you your yours use ' +
    // job-ad boilerplate
    'ability able apply applicant candidate candidates company day days excellent great ideal including ' +
    'join looking must opportunity plus position preferred required requirements responsibilities role ' +
    'seeking strong team teams using well work working year years'
  ).split(' '),
);

// Phrases end at sentence and list punctuation: word pairs never span them.
const SEGMENT_BREAK = /[.,;:!?()[\]{}<>"|•·\n\r\t]+/u;
// A word: letters/digits, plus trailing "+" or "#" ("c++", "c#") when nothing follows.
const WORD = /[\p{L}\p{N}]+(?:[+#]+(?![\p{L}\p{N}]))?/gu;
const NUMBER = /^\p{N}+[+#]*$/u;

/**
 * Normalised text → phrases (runs of content words between punctuation),
 * each word in its canonical spelling, stop words and bare numbers dropped.
 */
export function phrases(text: string): string[][] {
  const out: string[][] = [];
  for (const segment of normaliseText(text).split(SEGMENT_BREAK)) {
    const words: string[] = [];
    for (const match of segment.matchAll(WORD)) {
      const word = canonicalSkillKey(match[0]);
      if (!STOP_WORDS.has(word) && !NUMBER.test(word)) words.push(word);
    }
    if (words.length > 0) out.push(words);
  }
  return out;
}
