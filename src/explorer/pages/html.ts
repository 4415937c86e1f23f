// Server-side HTML with escaping by construction: every value interpolated into `html` is escaped unless it is
// itself an Html fragment built by `html` (or `raw` for constant markup). Chain data (log data, contract names,
// source files, revert strings) and user input (search text) therefore never reach the page unescaped.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | bigint | boolean | null | undefined | readonly Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Constant markup written in this codebase (never chain or user data). */
export function raw(s: string): Html {
  return new Html(s);
}

/** A JSON value embedded in a <script type="application/json"> block: `<` escaped so no tag can close it. */
export function jsonScript(id: string, value: unknown): Html {
  const json = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).replace(/</g, '\\u003c');
  return html`<script type="application/json" id="${id}">${raw(json)}</script>`;
}

const STYLE = `
:root{--fg:#1d2330;--muted:#6b7385;--line:#e3e6ee;--bg:#f6f7fb;--card:#fff;--ok:#137333;--bad:#b3261e;--accent:#3456d1}
*{box-sizing:border-box}body{margin:0;font:14px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#1d2330;color:#fff;padding:10px 24px;display:flex;gap:24px;align-items:center;flex-wrap:wrap}
header a{color:#fff;text-decoration:none;font-weight:600}header nav a{font-weight:400;margin-right:14px;opacity:.85}
header form{margin-left:auto;display:flex;gap:6px}header input{width:min(520px,60vw);padding:6px 10px;border-radius:6px;border:0}
header button{padding:6px 12px;border-radius:6px;border:0;background:var(--accent);color:#fff}
main{max-width:1180px;margin:20px auto;padding:0 16px}h1{font-size:20px;margin:8px 0 16px;word-break:break-all}h2{font-size:16px;margin:22px 0 8px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 18px;margin-bottom:16px;overflow-x:auto}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:500;white-space:nowrap}table.kv th{width:210px}
.mono,code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;word-break:break-all}
pre{white-space:pre-wrap;background:#f3f4f8;padding:10px;border-radius:6px;max-height:480px;overflow:auto}
a{color:var(--accent)}.muted{color:var(--muted)}.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;border:1px solid var(--line);background:#fff;color:var(--fg)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:16px}.pager{display:flex;gap:12px;margin-top:8px}
.notice{background:#fff8e1;border:1px solid #f0d98c;border-radius:10px;padding:12px 16px;margin-bottom:16px}
input[type=text],select,textarea{font:inherit;padding:6px 8px;border:1px solid var(--line);border-radius:6px;width:100%}
textarea{min-height:120px;font-family:ui-monospace,monospace;font-size:12px}
.tabs{display:flex;gap:4px;margin:0 0 -1px 0}.tabs a{padding:6px 14px;border:1px solid var(--line);border-bottom:0;border-radius:8px 8px 0 0;background:#eef0f6;text-decoration:none}
.tabs a.active{background:var(--card);color:var(--fg);font-weight:600}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:22px;border-left:1px dashed var(--line)}ul.tree{padding-left:0;border:0}
ul.tree li{padding:3px 0}ul.tree li.undone>*:not(ul){opacity:.55}ul.tree li.failed>.kind{border-color:var(--bad);color:var(--bad)}
.frame-error{margin-left:8px}.reverted{color:var(--bad)}
form.stack label{display:block;margin:10px 0 4px;color:var(--muted)}form.stack button{margin-top:12px;padding:8px 16px;border:0;border-radius:6px;background:var(--accent);color:#fff}
`;

export interface PageMeta {
  readonly title: string;
  readonly chainId: bigint;
  /** Inline script run after the page loads (constant code from this codebase). */
  readonly script?: string;
}

export function layout(meta: PageMeta, body: Html): string {
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${meta.title} · icp-evm explorer</title><style>${raw(STYLE)}</style></head>
<body><header><a href="/">icp-evm explorer</a><span class="badge">chain ${meta.chainId.toString()}</span>
<nav><a href="/">Home</a><a href="/verify">Verify</a><a href="/ops">Ops</a></nav>
<form action="/search" method="get" role="search"><input type="text" name="q" placeholder="Block number or hash, tx hash or tx_id, address" aria-label="search"><button type="submit">Search</button></form></header>
<main>${body}</main>${meta.script === undefined ? '' : raw(`<script>${meta.script}</script>`)}</body></html>`.text
  }`;
}
