import { randomUUID } from 'node:crypto';
import { candidateRegistered, jobPosted } from '@hireflow/testing/events';

// Realistic profiles that the score separates (scores against the role):
// the three backend engineers 0.63–0.76, the frontend developer 0.25, the
// warehouse operator and the chef about 0.01. The threshold is 0.4.
export const backendRole = {
  title: 'Senior Backend Engineer (TypeScript, Node.js)',
  description:
    'Build event-driven microservices in TypeScript on Node.js with PostgreSQL and Redis, deployed on AWS with Docker. Clean REST APIs, tests and observability.',
  skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Redis', 'AWS', 'Docker', 'REST'],
};

export const fitting = [
  {
    headline: 'Backend engineer: TypeScript and Node services, Postgres, event-driven systems on AWS',
    skills: ['typescript', 'nodejs', 'postgres', 'redis', 'aws', 'kubernetes'],
  },
  {
    headline: 'Senior Node.js developer building REST APIs in TypeScript with PostgreSQL and Docker',
    skills: ['Node.js', 'TypeScript', 'PostgreSQL', 'Docker', 'REST'],
  },
  {
    headline: 'Full-stack engineer, strongest on the backend: Node.js, TypeScript, Redis, AWS',
    skills: ['JavaScript', 'TypeScript', 'Node', 'Redis', 'AWS', 'React'],
  },
];

export const unfitting = [
  {
    headline: 'Warehouse operator: forklift certified, picking and packing, inventory and shipping',
    skills: ['Forklift', 'Inventory management', 'Order picking'],
  },
  {
    headline: 'Frontend developer: React and TypeScript single-page apps, design systems',
    skills: ['TypeScript', 'React', 'CSS', 'Storybook'],
  },
  {
    headline: 'Pastry chef: French patisserie, bread, menu planning, kitchen management',
    skills: ['Baking', 'Menu planning', 'Food safety'],
  },
];

export const role = (tenantId: string, data: Parameters<typeof jobPosted>[1] = {}) =>
  jobPosted(tenantId, { ...backendRole, ...data });

export const candidate = (tenantId: string, profile: { headline: string; skills: string[] }) =>
  candidateRegistered(tenantId, { ...profile, candidateId: randomUUID() });
