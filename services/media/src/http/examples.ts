// Examples of the public API document (docs/api/openapi.json): one per
// request and response, checked against their schemas by Redocly's lint.

const UPLOAD_ID = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';
const POSTING_ID = '0b6f3c8e-4a2d-4c1e-9f57-2d8a1e6b9c40';

export const uploadFormExample = { file: '(the image bytes)', ownerType: 'job', ownerId: POSTING_ID };

export const uploadAcceptedExample = {
  id: UPLOAD_ID,
  status: 'pending',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
};

export const uploadExample = {
  id: UPLOAD_ID,
  status: 'ready',
  ownerType: 'job',
  ownerId: POSTING_ID,
  ownerConfirmed: true,
  uploadedAt: '2026-11-29T10:10:00.000Z',
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
