// Synthetic but realistic postings and candidates for the matching benches:
// role families with their own titles, sentences and skills, descriptions
// padded with the boilerplate every ad carries (~3k characters), headlines of
// ~100–200 characters. Seeded: the same corpus on every run.
import type { CandidateText, PostingText } from '@hireflow/matching/core';

interface Family {
  titles: string[];
  headlines: string[];
  sentences: string[];
  skills: string[];
}

const FAMILIES: Family[] = [
  family(
    ['Backend Engineer (TypeScript)', 'Senior Node.js Developer', 'Platform Engineer, TypeScript'],
    ['Backend engineer: TypeScript and Node services', 'Node.js developer building APIs on Postgres'],
    [
      'You will build event-driven services in TypeScript on Node.js.',
      'Our APIs run on Fastify with PostgreSQL and Redis behind them.',
      'You will own queues, retries and observability with OpenTelemetry.',
    ],
    ['TypeScript', 'Node.js', 'PostgreSQL', 'Redis', 'AWS', 'Docker', 'REST', 'GraphQL', 'Kafka'],
  ),
  family(
    ['Java Backend Developer', 'Senior Software Engineer (Java, Spring)', 'JVM Engineer'],
    ['Java engineer, Spring Boot microservices', 'Backend developer in Java and Kotlin on the JVM'],
    [
      'You will design Spring Boot microservices in Java and Kotlin.',
      'We run Kafka, PostgreSQL and Kubernetes in production.',
      'Performance tuning of the JVM and clean domain models matter to us.',
    ],
    ['Java', 'Spring Boot', 'Kotlin', 'Kafka', 'PostgreSQL', 'Kubernetes', 'Maven', 'Docker'],
  ),
  family(
    ['Frontend Developer (React)', 'Senior Frontend Engineer', 'UI Engineer, React and TypeScript'],
    ['Frontend developer: React, TypeScript, design systems', 'UI engineer crafting accessible web apps'],
    [
      'You will build accessible single-page apps in React and TypeScript.',
      'You care about design systems, CSS architecture and Storybook.',
      'Performance budgets and web vitals guide our releases.',
    ],
    ['React', 'TypeScript', 'JavaScript', 'CSS', 'HTML', 'Storybook', 'Next.js', 'Accessibility'],
  ),
  family(
    ['Data Engineer', 'Analytics Engineer', 'Senior Data Platform Engineer'],
    ['Data engineer: Spark, Airflow and dbt pipelines', 'Analytics engineer modelling data in dbt and SQL'],
    [
      'You will build batch and streaming pipelines with Spark and Airflow.',
      'Our warehouse is modelled in dbt on Snowflake with SQL tests.',
      'Data quality, lineage and cost of queries are yours to watch.',
    ],
    ['Python', 'SQL', 'Spark', 'Airflow', 'dbt', 'Snowflake', 'Kafka', 'AWS'],
  ),
  family(
    ['DevOps Engineer', 'Site Reliability Engineer', 'Cloud Infrastructure Engineer'],
    ['SRE: Kubernetes, Terraform and on-call', 'DevOps engineer automating cloud infrastructure on AWS'],
    [
      'You will run Kubernetes clusters and infrastructure as code with Terraform.',
      'You will own CI/CD pipelines, alerting and incident response.',
      'Linux, networking and cost control of the cloud are daily work.',
    ],
    ['Kubernetes', 'Terraform', 'AWS', 'Linux', 'CI/CD', 'Prometheus', 'Go', 'Docker'],
  ),
  family(
    ['Machine Learning Engineer', 'Data Scientist', 'Applied Scientist, NLP'],
    ['ML engineer shipping models to production', 'Data scientist: forecasting, experiments, Python'],
    [
      'You will train and deploy machine learning models with PyTorch.',
      'Experiment design, feature engineering and evaluation are central.',
      'You will serve models behind low-latency APIs and monitor drift.',
    ],
    ['Python', 'PyTorch', 'Machine Learning', 'SQL', 'Pandas', 'scikit-learn', 'MLOps', 'Statistics'],
  ),
  family(
    ['Warehouse Operative', 'Forklift Driver', 'Warehouse Team Leader'],
    [
      'Warehouse operator, forklift certified, picking and packing',
      'Logistics associate: inventory and shipping',
    ],
    [
      'You will pick and pack orders and load and unload deliveries.',
      'A valid forklift licence and care for health and safety are needed.',
      'You will keep inventory records accurate across shifts.',
    ],
    ['Forklift', 'Order picking', 'Inventory management', 'Health and safety', 'Shipping', 'Stock control'],
  ),
  family(
    ['Registered Nurse', 'Staff Nurse, Surgical Ward', 'Community Nurse'],
    [
      'Registered nurse with acute and surgical ward experience',
      'Community nurse caring for patients at home',
    ],
    [
      'You will assess, plan and deliver patient care on a busy ward.',
      'Medication administration and accurate clinical records are essential.',
      'You will work with doctors, therapists and families every day.',
    ],
    ['Patient care', 'Medication administration', 'Clinical assessment', 'Wound care', 'Triage', 'BLS'],
  ),
  family(
    ['Account Executive', 'Sales Development Representative', 'Key Account Manager'],
    ['B2B sales executive closing SaaS deals', 'Account manager growing enterprise customers'],
    [
      'You will own a pipeline of B2B deals from prospecting to close.',
      'You will run discovery calls, demos and negotiations with buyers.',
      'Our CRM is Salesforce and we forecast every week.',
    ],
    ['B2B sales', 'Salesforce', 'Negotiation', 'Prospecting', 'CRM', 'Account management'],
  ),
  family(
    ['Accountant', 'Financial Controller', 'Accounts Payable Specialist'],
    [
      'Chartered accountant: month-end close and reporting',
      'Finance specialist in payables and reconciliations',
    ],
    [
      'You will run month-end close, reconciliations and management reports.',
      'IFRS, VAT returns and audits are part of the role.',
      'Excel modelling and an ERP such as SAP are daily tools.',
    ],
    ['Accounting', 'IFRS', 'Excel', 'SAP', 'Reconciliation', 'VAT', 'Financial reporting'],
  ),
];

const BOILERPLATE = [
  'We offer a competitive salary, a pension plan and private health insurance.',
  'Hybrid working with two days a week in our office, and flexible hours.',
  'We are an equal opportunity employer and value diversity at our company.',
  'You will join a friendly team that cares about learning and growth.',
  'Our interview process has three steps and takes about two weeks.',
  'Training budget, parental leave and 28 days of holiday are included.',
  'We are growing fast and have offices in London, Berlin and Lisbon.',
  'Tell us about something you built or improved that you are proud of.',
];

function family(titles: string[], headlines: string[], sentences: string[], skills: string[]): Family {
  return { titles, headlines, sentences, skills };
}

/** mulberry32: a seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pickOne = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!;
const pickSome = <T>(random: () => number, items: readonly T[], count: number): T[] =>
  [...items].sort(() => random() - 0.5).slice(0, count);

/** A posting with a ~3,000-character description (its own sentences among boilerplate). */
export function makePosting(random: () => number): PostingText {
  const f = pickOne(random, FAMILIES);
  const sentences: string[] = [];
  while (sentences.join(' ').length < 3000) {
    sentences.push(random() < 0.4 ? pickOne(random, f.sentences) : pickOne(random, BOILERPLATE));
  }
  return {
    title: pickOne(random, f.titles),
    description: sentences.join(' '),
    skills: pickSome(random, f.skills, 4 + Math.floor(random() * 4)),
  };
}

/** A candidate: a headline of ~100–200 characters and 4–8 skills, mostly of one family. */
export function makeCandidate(random: () => number): CandidateText {
  const f = pickOne(random, FAMILIES);
  const other = pickOne(random, FAMILIES);
  const headline = `${pickOne(random, f.headlines)}. ${pickOne(random, f.sentences)}`;
  const skills = [
    ...pickSome(random, f.skills, 3 + Math.floor(random() * 4)),
    ...pickSome(random, other.skills, 1),
  ];
  return { headline, skills: [...new Set(skills)] };
}
