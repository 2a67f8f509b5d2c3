// Realistic example profiles for the score specs and docs/matching.md.
import type { CandidateText, PostingText } from '../embedding/profile.ts';

export const typescriptBackendRole: PostingText = {
  title: 'Senior Backend Engineer (TypeScript, Node.js)',
  description: [
    'We are looking for a backend engineer to build the services behind our job board.',
    'You will design and run event-driven microservices in TypeScript on Node.js,',
    'with PostgreSQL and Redis, messaging over SQS, and deploy them on AWS with Docker.',
    'You care about tests, observability (OpenTelemetry) and clean REST APIs.',
    'Experience with Fastify or Express, SQL schema design and queues such as BullMQ is a plus.',
  ].join(' '),
  skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Redis', 'AWS', 'Docker', 'REST'],
};

export const typescriptEngineer: CandidateText = {
  headline: 'Backend engineer: TypeScript and Node services, Postgres, event-driven systems on AWS',
  skills: ['typescript', 'nodejs', 'postgres', 'redis', 'aws', 'kubernetes', 'graphql'],
};

export const warehouseOperator: CandidateText = {
  headline: 'Warehouse operator: forklift certified, picking and packing, inventory and shipping',
  skills: ['Forklift', 'Inventory management', 'Order picking', 'Shipping & receiving', 'Health and safety'],
};

export const javaEngineer: CandidateText = {
  headline: 'Backend engineer building Java and Spring Boot microservices, PostgreSQL, Kafka, AWS',
  skills: ['Java', 'Spring Boot', 'PostgreSQL', 'Kafka', 'AWS', 'Docker', 'Microservices'],
};

export const warehouseRole: PostingText = {
  title: 'Warehouse Operative (Forklift)',
  description: [
    'Join our distribution centre as a warehouse operative. You will pick and pack orders,',
    'load and unload deliveries, operate a forklift and keep inventory records accurate.',
    'A valid forklift licence and a good health and safety record are required. Shifts, overtime available.',
  ].join(' '),
  skills: ['Forklift', 'Order picking', 'Inventory management', 'Health & safety'],
};
