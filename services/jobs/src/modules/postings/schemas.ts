import { z } from 'zod';
import { newPostingExample } from '../../http/examples.ts';
import { email, emailSafeText, mediaImage, skills, text } from '../../http/schemas.ts';

export const newPostingBody = z
  .strictObject({
    title: emailSafeText(200),
    description: text(20_000, { multiline: true }),
    skills,
    location: text(200),
    remote: z.boolean({ message: 'must be true or false' }),
    contactEmail: email.optional().describe("Defaults to the tenant's contact address"),
  })
  .meta({ description: 'A job posting', examples: [newPostingExample] });

export const postingSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['processing', 'matched', 'closed']),
    title: z.string(),
    description: z.string(),
    skills: z.array(z.string()),
    location: z.string(),
    remote: z.boolean(),
    contactEmail: z.string(),
    matchCount: z.number().int().nullable(),
    logo: mediaImage.nullable().describe("The posting's logo (an upload with ownerType job), once processed"),
    postedAt: z.string(),
    closesAt: z.string(),
    closedAt: z.string().nullable(),
  })
  .meta({ id: 'Posting', description: 'A job posting and its status' });

export const matchView = z
  .object({
    matchId: z.uuid(),
    jobId: z.uuid(),
    candidateId: z.uuid(),
    score: z.number(),
    foundAt: z.string(),
    candidate: z.object({ name: z.string(), headline: z.string(), location: z.string() }).nullable(),
    job: z.object({ title: z.string(), status: z.string() }).nullable(),
  })
  .meta({ id: 'Match', description: 'A candidate matched to a posting, with its score' });

const nextCursor = z
  .string()
  .nullable()
  .describe('Pass as ?cursor= for the next page; null on the last page');

export const matchesPage = z
  .object({ items: z.array(matchView), nextCursor })
  .meta({ id: 'MatchPage', description: 'A page of matches, best first' });
export const postingsPage = z
  .object({ items: z.array(postingSchema), nextCursor })
  .meta({ id: 'PostingPage', description: 'A page of postings, newest first' });
