// Examples of the public API document (docs/api/openapi.json): one per
// request and response, checked against their schemas by Redocly's lint.

const POSTING_ID = '0b6f3c8e-4a2d-4c1e-9f57-2d8a1e6b9c40';
const CANDIDATE_ID = '5c2e9a71-8d43-4b6f-a1e0-7f3b2c9d4e85';
const MATCH_ID = 'e4a1b7c2-3d5f-4e68-9a0b-1c2d3e4f5a6b';
const UPLOAD_ID = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

export const newPostingExample = {
  title: 'Backend engineer',
  description: 'Node.js, Postgres and event-driven systems. Hybrid, two days a week in the office.',
  skills: ['node', 'postgres', 'aws'],
  location: 'Berlin',
  remote: true,
};

export const registerCandidateExample = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  headline: 'Backend engineer, ten years of Node',
  skills: ['node', 'postgres'],
  location: 'London',
};

export const postingAcceptedExample = { id: POSTING_ID, status: 'processing', traceId: TRACE_ID };
export const postingClosedExample = { id: POSTING_ID, status: 'closed', traceId: TRACE_ID };
export const candidateAcceptedExample = { id: CANDIDATE_ID, status: 'registered', traceId: TRACE_ID };

const imageExample = {
  uploadId: UPLOAD_ID,
  variants: [
    {
      name: 'thumb',
      width: 128,
      height: 64,
      contentType: 'image/webp',
      url: `https://api.hireflow.dev/media/${UPLOAD_ID}/thumb.webp`,
    },
    {
      name: 'medium',
      width: 512,
      height: 256,
      contentType: 'image/webp',
      url: `https://api.hireflow.dev/media/${UPLOAD_ID}/medium.webp`,
    },
  ],
};

export const postingExample = {
  id: POSTING_ID,
  status: 'matched',
  ...newPostingExample,
  contactEmail: 'hiring@example.com',
  matchCount: 12,
  logo: imageExample,
  postedAt: '2026-11-29T10:00:00.000Z',
  closesAt: '2026-12-29T10:00:00.000Z',
  closedAt: null,
};

export const candidateExample = {
  id: CANDIDATE_ID,
  status: 'registered',
  ...registerCandidateExample,
  photo: null,
  registeredAt: '2026-11-29T10:05:00.000Z',
};

const NEXT_CURSOR = 'WyIyMDI2LTExLTI5VDEwOjAwOjAwLjAwMFoiLCIwYjZmM2M4ZSJd';

export const postingsPageExample = { items: [postingExample], nextCursor: NEXT_CURSOR };
export const candidatesPageExample = { items: [candidateExample], nextCursor: null };

export const matchesPageExample = {
  items: [
    {
      matchId: MATCH_ID,
      jobId: POSTING_ID,
      candidateId: CANDIDATE_ID,
      score: 0.87,
      foundAt: '2026-11-29T10:06:00.000Z',
      candidate: {
        name: 'Ada Lovelace',
        headline: 'Backend engineer, ten years of Node',
        location: 'London',
      },
      job: { title: 'Backend engineer', status: 'matched' },
    },
  ],
  nextCursor: null,
};

export const statusStreamExample =
  `id: 1\nevent: status\ndata: {"jobId":"${POSTING_ID}","status":"processing","matchCount":null}\n\n` +
  ': keep-alive\n\n' +
  `id: 2\nevent: status\ndata: {"jobId":"${POSTING_ID}","status":"matched","matchCount":12}\n\n`;

export const candidateBatchExample = {
  items: [
    { ...registerCandidateExample, key: 'import-7-row-1' },
    { ...registerCandidateExample, email: 'not-an-email', key: 'import-7-row-2' },
  ],
};
export const candidateBatchAcceptedExample = {
  batchId: '3f1c2a9e-7b4d-4e8a-9c1f-2d6b5a4e3c21',
  items: [
    { id: CANDIDATE_ID, status: 'registered' },
    {
      id: null,
      status: 'invalid',
      errors: [{ field: 'items[1].email', message: 'must be an email address' }],
    },
  ],
  traceId: TRACE_ID,
};
