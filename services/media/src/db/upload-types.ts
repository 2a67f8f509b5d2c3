/** A variant as stored on the upload row (jsonb); its URL is built from MEDIA_PUBLIC_URL when read. */
export interface StoredVariant {
  name: string;
  width: number;
  height: number;
  contentType: string;
  bytes: number;
}

/** What an upload may belong to: a posting (`job`, the public API's name) or a candidate. */
export type OwnerType = 'job' | 'candidate';
