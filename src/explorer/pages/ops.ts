// The operations page: the canister's mode, metric samples as charts, pruned gaps.
import { html, jsonScript } from './html.js';
import type { ExplorerQueries } from './queries.js';
import { OPS_CHART_SCRIPT } from './scripts.js';
import { type PagesDeps } from './common.js';

export async function opsPage(_deps: PagesDeps, q: ExplorerQueries) {
  const [samples, gaps, state] = await Promise.all([q.metricsSamples(200), q.prunedGaps(50), q.indexerState()]);
  const latest = samples.at(-1);
  const metrics = (latest?.metrics ?? {}) as Record<string, unknown>;
  const mode = modeName(metrics.mode);
  const series = chartSeries(samples);
  return {
    title: 'Ops',
    body: html`<h1>Operations</h1>
<div class="card"><table class="kv">
<tr><th>Ops state</th><td id="ops-mode">${mode ?? 'no sample yet'}</td></tr>
<tr><th>Last sample</th><td>${latest === undefined ? '—' : String(latest.sampled_at instanceof Date ? latest.sampled_at.toISOString() : latest.sampled_at)}</td></tr>
<tr><th>Indexer cursor</th><td>${state === undefined ? '—' : html`block ${state.cursor_block.toString()} (head ${state.head_block?.toString() ?? '?'}, first available ${state.first_available_block?.toString() ?? '?'})`}</td></tr>
</table></div>
<div class="card"><h2>Metrics over time</h2>${series.length === 0 ? html`<p class="muted">No samples yet.</p>` : html`<div id="ops-charts"></div>${jsonScript('ops-series', series)}`}</div>
<div class="card"><h2>Pruned gaps</h2>${
      gaps.length === 0
        ? html`<p class="muted">None.</p>`
        : html`<table><tr><th>From</th><th>To</th><th>Seen</th></tr>${gaps.map((g) => html`<tr><td>${g.from_block.toString()}</td><td>${g.to_block.toString()}</td><td>${String(g.seen_at instanceof Date ? g.seen_at.toISOString() : g.seen_at)}</td></tr>`)}</table>`
    }</div>`,
    script: OPS_CHART_SCRIPT,
  };
}

export function modeName(mode: unknown): string | undefined {
  if (typeof mode === 'string') return mode;
  if (mode !== null && typeof mode === 'object') return Object.keys(mode)[0];
  return undefined;
}

/** Numeric top-level metrics (numbers or decimal strings) as series of [time ms, value]. */
export function chartSeries(samples: readonly { sampled_at: Date | string; head_block: bigint; metrics: unknown }[]): { name: string; points: [number, number][] }[] {
  const byName = new Map<string, [number, number][]>();
  const push = (name: string, t: number, v: number): void => {
    let s = byName.get(name);
    if (s === undefined) byName.set(name, (s = []));
    s.push([t, v]);
  };
  for (const s of samples) {
    const t = new Date(s.sampled_at).getTime();
    push('head_block', t, Number(s.head_block));
    const m = (s.metrics ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(m)) {
      if (k === 'time_ns' || k === 'head_block') continue;
      if (typeof v === 'number') push(k, t, v);
      else if (typeof v === 'string' && /^\d{1,30}$/.test(v)) push(k, t, Number(v));
    }
  }
  return [...byName].map(([name, points]) => ({ name, points }));
}
