import { z } from 'zod';
import { email, emailSafeText, mediaImage, skills, text } from '../../http/schemas.ts';

export const postJobBody = z
  .strictObject({
    title: emailSafeText(200),
    description: text(20_000, { multiline: true }),
    skills,
    location: text(200),
    remote: z.boolean({ message: 'must be true or false' }),
    contactEmail: email.optional().describe("Defaults to the tenant's contact address"),
  })
  .describe('A job posting');

export const postingSchema = z.object({
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
});

export const matchView = z.object({
  matchId: z.uuid(),
  jobId: z.uuid(),
  candidateId: z.uuid(),
  score: z.number(),
  foundAt: z.string(),
  candidate: z.object({ name: z.string(), headline: z.string(), location: z.string() }).nullable(),
  job: z.object({ title: z.string(), status: z.string() }).nullable(),
});

export const matchesPage = z.object({ items: z.array(matchView), nextCursor: z.string().nullable() });
export const postingsPage = z.object({ items: z.array(postingSchema), nextCursor: z.string().nullable() });
