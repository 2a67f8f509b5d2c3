// Test helpers for what reads traces (the launcher's tests, this package's):
// a trace small enough to write by hand, as an OTLP/JSON request.

/** Seconds since the epoch every made-up trace starts from. */
export const T0 = 1_764_000_000;

/** A one-span trace as an OTLP/JSON export request; `n` picks its ids and start. */
export function oneSpanTrace(n: number, service = 'media') {
  const traceId = n.toString(16).padStart(32, 'a');
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId: n.toString(16).padStart(16, 'b'),
                name: `op ${n}`,
                startTimeUnixNano: String(BigInt(T0 + n) * 1_000_000_000n),
                endTimeUnixNano: String(BigInt(T0 + n) * 1_000_000_000n + 1_000_000n),
              },
            ],
          },
        ],
      },
    ],
  };
  return { traceId, body: JSON.stringify(body) };
}
