// The launcher's choice of where the services send traces (the user's
// collector, one already listening, or a local trace viewer it starts).
import { freePort } from '@hireflow/testing';
import { startTraceViewer } from '@hireflow/trace-viewer';
import { oneSpanTrace } from '@hireflow/trace-viewer/testing';
import { describe, expect, it } from 'vitest';
import { startTraceBackend } from '../src/traces.ts';

describe('the launcher’s choice of trace backend', () => {
  it('uses OTEL_EXPORTER_OTLP_ENDPOINT when the user set it, and starts nothing', async () => {
    const backend = await startTraceBackend({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger.example:4318',
      TRACE_OTLP_PORT: 0,
      TRACE_UI_PORT: 0,
    });
    expect(backend).toMatchObject({ endpoint: 'http://jaeger.example:4318', viewer: undefined });
  });

  it('uses a collector already listening on TRACE_OTLP_PORT instead of starting a viewer', async () => {
    const other = await startTraceViewer({ otlpPort: 0, uiPort: 0 });
    try {
      const port = Number(new URL(other.otlpEndpoint).port);
      const backend = await startTraceBackend({
        OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
        TRACE_OTLP_PORT: port,
        TRACE_UI_PORT: 0,
      });
      expect(backend).toMatchObject({ endpoint: other.otlpEndpoint, viewer: undefined });
    } finally {
      await other.stop();
    }
  });

  it('starts the local viewer otherwise, and the services’ endpoint reaches it', async () => {
    const port = await freePort();
    const backend = await startTraceBackend({
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      TRACE_OTLP_PORT: port,
      TRACE_UI_PORT: 0,
    });
    try {
      expect(backend.viewer).toBeDefined();
      expect(backend.endpoint).toBe(`http://127.0.0.1:${port}`);
      const { traceId, body } = oneSpanTrace(40);
      expect(
        (
          await fetch(`${backend.endpoint}/v1/traces`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          })
        ).status,
      ).toBe(200);
      expect(backend.viewer!.traces().map((t) => t.traceId)).toEqual([traceId]);
    } finally {
      await backend.viewer?.stop();
    }
  });
});
