// The viewer's page frame: one inline stylesheet, no script, nothing fetched.

// Distinct on white and none of them red, which marks errors.
const PALETTE = [
  '#3b82f6',
  '#f59e0b',
  '#10b981',
  '#8b5cf6',
  '#ec4899',
  '#06b6d4',
  '#84cc16',
  '#f97316',
  '#6366f1',
  '#14b8a6',
];

/** A colour per service, from its place among all known services, so it stays the same on every page. */
export function serviceColours(allServices: string[]): (service: string) => string {
  const sorted = [...new Set(allServices)].sort();
  return (service) => {
    const index = sorted.indexOf(service);
    return PALETTE[(index < 0 ? sorted.length : index) % PALETTE.length]!;
  };
}

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Local wall-clock time of unix microseconds, to the millisecond. */
export function formatTime(micros: number): string {
  const d = new Date(Math.floor(micros / 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** `extra` is HTML shown after the name (a count). */
export function serviceChip(service: string, colour: string, extra = ''): string {
  return `<span class="chip"><i style="background:${colour}"></i>${escapeHtml(service)}${extra}</span>`;
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><nav><a href="/" class="brand">Hireflow traces</a><span class="muted">local trace viewer</span><form action="/search" method="get"><input name="traceId" placeholder="Trace id" aria-label="Trace id" size="34" spellcheck="false"><button>Open</button></form></nav><main>${body}</main></body></html>`;
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2937;background:#f8fafc}
a{color:#1d4ed8;text-decoration:none}a:hover{text-decoration:underline}
nav{display:flex;align-items:center;gap:14px;padding:10px 20px;background:#0f172a;color:#cbd5e1}
nav .brand{color:#fff;font-weight:600;font-size:15px}
nav form{margin-left:auto;display:flex;gap:6px}
nav input{font:12px ui-monospace,"DejaVu Sans Mono",monospace;padding:4px 8px;border:1px solid #334155;border-radius:4px;background:#1e293b;color:#e2e8f0}
nav button{padding:4px 10px;border:0;border-radius:4px;background:#3b82f6;color:#fff;cursor:pointer}
main{padding:16px 20px 40px}
h1{font-size:18px;margin:0 0 4px;font-weight:600}
h1 .svc{color:#64748b;font-weight:500}
.muted{color:#64748b}
.mono,code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
.meta{display:flex;flex-wrap:wrap;gap:6px 18px;margin:6px 0 12px;color:#475569}
.meta b{color:#0f172a;font-weight:600}
.chip{display:inline-flex;align-items:center;gap:5px;padding:1px 8px 1px 6px;margin:0 4px 4px 0;border:1px solid #e2e8f0;border-radius:10px;background:#fff;white-space:nowrap}
.chip i{width:9px;height:9px;border-radius:2px;display:inline-block}
.badge{display:inline-block;padding:0 6px;border-radius:8px;background:#dc2626;color:#fff;font-size:11px;font-weight:600;vertical-align:1px}
.warn{padding:8px 12px;margin:0 0 12px;border:1px solid #fcd34d;background:#fffbeb;border-radius:6px}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;overflow:hidden}
.row{display:grid;grid-template-columns:minmax(320px,38%) 1fr;align-items:center;min-height:26px;border-top:1px solid #f1f5f9}
.head{background:#f1f5f9;color:#475569;font-size:11px;border-top:0;min-height:30px}
.name{display:flex;align-items:center;gap:6px;padding:3px 10px;overflow:hidden;white-space:nowrap;border-right:1px solid #e2e8f0;height:100%}
.name .op{overflow:hidden;text-overflow:ellipsis}
.name .svc{color:#64748b;flex:none}
.name .dot{width:4px;align-self:stretch;border-radius:2px;flex:none}
.caret{color:#94a3b8;width:10px;flex:none;font-size:10px}
.tl{position:relative;height:100%;min-height:26px;border-right:1px solid #e2e8f0;background-image:linear-gradient(to right,#e2e8f0 1px,transparent 1px);background-size:25% 100%;margin-right:90px}
.head .tl{display:flex;align-items:center}
.tick{position:absolute;transform:translateX(4px);white-space:nowrap}.tick.end{transform:translateX(-100%);padding-right:4px}
.bar{position:absolute;top:7px;height:12px;min-width:2px;border-radius:2px}
.dur{position:absolute;top:5px;font-size:11px;color:#475569;white-space:nowrap}
details>summary{list-style:none;cursor:pointer}details>summary::-webkit-details-marker{display:none}
details>summary:hover{background:#f8fafc}
details[open]>summary{background:#eff6ff}
details[open] .caret{transform:rotate(90deg)}
.err>summary{background:#fef2f2}.err>summary:hover,.err[open]>summary{background:#fee2e2}
.err .op{color:#b91c1c;font-weight:600}
.err .bar{background:repeating-linear-gradient(135deg,#dc2626 0 6px,#ef4444 6px 12px)!important}
.err .dur{color:#b91c1c;font-weight:600}
.found>summary{box-shadow:inset 3px 0 #1d4ed8}
.detail{padding:10px 14px 14px;border-top:1px solid #e2e8f0;background:#fcfcfd;display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:12px}
.detail h3{margin:0 0 4px;font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:#64748b}
.kv{border-collapse:collapse;width:100%}
.kv td{padding:2px 8px 2px 0;vertical-align:top;border-bottom:1px solid #f1f5f9}
.kv td:first-child{color:#475569;white-space:nowrap;width:1%}
.kv td:last-child{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;word-break:break-all;white-space:pre-wrap}
.event{margin:0 0 8px}.event.exc{border-left:3px solid #dc2626;padding-left:8px}
pre{margin:4px 0 0;padding:8px;background:#f1f5f9;border-radius:4px;white-space:pre-wrap;word-break:break-all;font-size:11px;max-height:300px;overflow:auto}
table.list{border-collapse:collapse;width:100%;background:#fff}
.list th{text-align:left;font-weight:600;color:#475569;font-size:11px;padding:8px 10px;background:#f1f5f9}
.list td{padding:7px 10px;border-top:1px solid #f1f5f9;vertical-align:middle}
.list tr.error td{background:#fef2f2}
.list .num{text-align:right;white-space:nowrap}
.spark{display:inline-block;height:6px;border-radius:3px;background:#94a3b8;vertical-align:middle;margin-right:6px}
.filters{margin:0 0 12px}.filters a.chip{color:inherit}.filters a.on{border-color:#3b82f6;background:#eff6ff}
.empty{padding:24px;text-align:center;color:#475569}
`;
