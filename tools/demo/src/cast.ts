// Who takes part in the demo: a role and four candidates, three of whom fit
// it. Addresses are under example.test (reserved, never delivered) and carry
// a tag of the run, so each run's emails are its own.

import type { NewCandidate, NewJob } from '@hireflow/client';

/** The public API's request bodies, every optional field given. */
export type DemoCandidate = Required<NewCandidate>;
export type DemoRole = Required<NewJob>;

const PEOPLE = [
  {
    name: 'Grace Hopper',
    headline: 'Backend engineer: TypeScript and Node services, Postgres, event-driven systems on AWS',
    skills: ['typescript', 'nodejs', 'postgres', 'redis', 'aws', 'kubernetes'],
  },
  {
    name: 'Alan Turing',
    headline: 'Senior Node.js developer building REST APIs in TypeScript with PostgreSQL and Docker',
    skills: ['Node.js', 'TypeScript', 'PostgreSQL', 'Docker', 'REST'],
  },
  {
    name: 'Katherine Johnson',
    headline: 'Full-stack engineer, strongest on the backend: Node.js, TypeScript, Redis, AWS',
    skills: ['JavaScript', 'TypeScript', 'Node', 'Redis', 'AWS', 'React'],
  },
  {
    name: 'Lillian Moller',
    headline: 'Warehouse operator: forklift certified, picking and packing, inventory and shipping',
    skills: ['Forklift', 'Inventory management', 'Order picking'],
  },
];

export function demoCast(tag: string): { role: DemoRole; candidates: DemoCandidate[] } {
  const address = (name: string) => `${name.toLowerCase().replace(/\W+/g, '.')}.${tag}@example.test`;
  return {
    role: {
      title: `Senior Backend Engineer (demo ${tag})`,
      description:
        'Build event-driven microservices in TypeScript on Node.js with PostgreSQL and Redis, deployed on AWS with Docker. Clean REST APIs, tests and observability.',
      skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Redis', 'AWS', 'Docker', 'REST'],
      location: 'Berlin',
      remote: true,
      contactEmail: address('recruiter'),
    },
    candidates: PEOPLE.map((p) => ({ ...p, email: address(p.name), location: 'Berlin' })),
  };
}
