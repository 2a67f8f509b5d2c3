/** A processed upload (media.processed.v1): a posting's logo, a candidate's photo (jsonb). */
export interface MediaImage {
  uploadId: string;
  variants: { name: string; width: number; height: number; contentType: string; url: string }[];
}
