// A vitest reporter beside the default one: at the end of a run, each project's wall time span and the slowest
// test files (import plus tests and hooks), so the files that make `npm test` long are visible. With
// FILE_TIMES_JSON=tests/file-times.json it also writes every file's seconds into that file (merged with what it
// holds): the longest-first order of a fresh clone (tests/support/sequencer.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 15;

export default class FileTimesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length === 0) return;
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      return { project: m.project.name, file: relative(process.cwd(), m.moduleId), ms: d.collectDuration + d.setupDuration + d.duration };
    });
    const byProject = new Map<string, { files: number; ms: number }>();
    for (const r of rows) {
      const p = byProject.get(r.project) ?? { files: 0, ms: 0 };
      p.files++;
      p.ms += r.ms;
      byProject.set(r.project, p);
    }
    const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    const out = ['', 'test file times (import + tests + hooks; files of a project run in parallel up to its maxWorkers):'];
    for (const [name, p] of byProject) out.push(`  project ${name}: ${p.files} files, ${s(p.ms)} in all`);
    out.push(`  slowest ${Math.min(SHOWN, rows.length)}:`);
    for (const r of rows.sort((a, b) => b.ms - a.ms).slice(0, SHOWN)) out.push(`  ${s(r.ms).padStart(8)}  ${r.project.padEnd(9)} ${r.file}`);
    console.log(out.join('\n'));
    const json = process.env['FILE_TIMES_JSON'];
    if (json !== undefined && json !== '') {
      const times = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as Record<string, number>) : {};
      for (const r of rows) times[`${r.project}:${r.file}`] = Math.round(r.ms / 100) / 10;
      const sorted = Object.fromEntries(Object.entries(times).sort(([a], [b]) => (a < b ? -1 : 1)));
      writeFileSync(json, `${JSON.stringify(sorted, null, 2)}\n`);
    }
  }
}
