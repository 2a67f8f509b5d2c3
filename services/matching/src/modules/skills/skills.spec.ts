import { describe, expect, it } from 'vitest';
import { normaliseSkill, normaliseSkills } from './skills.ts';

describe('normaliseSkill', () => {
  it.each([
    ['Node.js', 'nodejs'],
    ['node.js', 'nodejs'],
    ['NodeJS', 'nodejs'],
    ['node', 'nodejs'],
    ['JS', 'javascript'],
    ['TS', 'typescript'],
    ['TypeScript', 'typescript'],
    ['Postgres', 'postgresql'],
    ['PostgreSQL', 'postgresql'],
    ['k8s', 'kubernetes'],
    ['Kubernetes', 'kubernetes'],
    ['Golang', 'go'],
    ['C++', 'c++'],
    ['c#', 'c#'],
    ['C Sharp', 'c#'],
    ['.NET', 'dotnet'],
    ['Spring Boot', 'springboot'],
    ['spring-boot', 'springboot'],
    ['CI/CD', 'cicd'],
    ['Amazon Web Services', 'aws'],
    ['  React.js ', 'react'],
  ])('%s → %s', (raw, canonical) => {
    expect(normaliseSkill(raw)).toBe(canonical);
  });

  it('keeps c, c++ and c# apart', () => {
    expect(new Set(['C', 'C++', 'C#'].map(normaliseSkill)).size).toBe(3);
  });

  it('returns null when nothing is left, and refuses non-strings', () => {
    expect(normaliseSkill(' -- ')).toBeNull();
    expect(() => normaliseSkill(3 as unknown as string)).toThrow(TypeError);
  });
});

describe('normaliseSkills', () => {
  it('deduplicates after normalising, in first-seen order, and drops blanks', () => {
    expect(normaliseSkills(['Node.js', 'TS', 'nodejs', '', 'typescript', 'Docker'])).toEqual([
      'nodejs',
      'typescript',
      'docker',
    ]);
  });

  it('refuses a non-array', () => {
    expect(() => normaliseSkills('ts' as unknown as string[])).toThrow(TypeError);
  });
});
