// Skill names as recruiters and candidates type them ("Node.js", "nodejs",
// "Node", "k8s", "Postgres") reduced to one canonical key, so the overlap term
// compares what people mean, not how they spell it.
import { canonicalSkillKey } from './aliases.ts';
import { normaliseText } from './spelling.ts';

/**
 * One skill as typed → its canonical key ("Node.js" → "nodejs", "K8s" →
 * "kubernetes", "Spring Boot" → "springboot", "C++" → "c++"), or null when
 * nothing meaningful is left.
 */
export function normaliseSkill(raw: string): string | null {
  if (typeof raw !== 'string') throw new TypeError('a skill must be a string');
  const compact = normaliseText(raw).replace(/[^\p{L}\p{N}+#]+/gu, '');
  return compact === '' ? null : canonicalSkillKey(compact);
}

/** A skills list → canonical keys, without duplicates, in first-seen order. */
export function normaliseSkills(raw: readonly string[]): string[] {
  if (!Array.isArray(raw)) throw new TypeError('skills must be an array of strings');
  const seen = new Set<string>();
  for (const skill of raw) {
    const key = normaliseSkill(skill);
    if (key !== null) seen.add(key);
  }
  return [...seen];
}
