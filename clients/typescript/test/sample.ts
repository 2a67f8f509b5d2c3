// A consumer's program, type-checked (never run) against the client's types
// freshly generated from the services' routes (test/public-api.test.ts): a
// change of the API that breaks consumers breaks this file.
import { createHireflowClient, HireflowProblem, type Posting } from '../src/index.ts';

export async function sample(): Promise<void> {
  const client = createHireflowClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'hf_…' });

  const job = await client.jobs.post(
    { title: 'Backend engineer', description: 'Node', skills: ['node'], location: 'Berlin', remote: true },
    { idempotencyKey: crypto.randomUUID() },
  );
  const posting: Posting = await client.jobs.get(job.id);
  const status: 'processing' | 'matched' | 'closed' = posting.status;
  for await (const change of client.jobs.events(job.id, { reconnect: false })) {
    if (change.status === 'matched') break;
  }
  for await (const match of client.jobs.allMatches(job.id)) console.log(match.score, match.candidate?.name);

  const candidate = await client.candidates.register({
    name: 'Ada',
    email: 'ada@example.com',
    headline: '',
    skills: [],
    location: '',
  });
  if (!candidate.created) console.log('already registered', candidate.id);

  const upload = await client.uploads.create(new Uint8Array([0x89, 0x50]), {
    filename: 'logo.png',
    owner: { type: 'job', id: job.id },
  });
  const ready = await client.uploads.waitUntilFinished(upload.id);
  const urls: string[] = ready.variants.map((variant) => variant.url);

  // The raw typed client: paths, parameters and answers come from the document.
  const page = await client.api.GET('/v1/candidates', { params: { query: { limit: 10 } } });
  const names: string[] | undefined = page.data?.items.map((item) => item.name);
  // @ts-expect-error: no such path
  await client.api.GET('/v1/nothing');
  // @ts-expect-error: remote is a boolean
  await client.jobs.post({ title: 't', description: 'd', skills: [], location: 'x', remote: 'yes' });
  // @ts-expect-error: limit is a number
  await client.api.GET('/v1/jobs', { params: { query: { limit: 'ten' } } });

  try {
    await client.jobs.close(job.id);
  } catch (error) {
    if (error instanceof HireflowProblem) console.log(error.status, error.code, error.fieldError('id'));
  }
  console.log(status, urls, names);
}
