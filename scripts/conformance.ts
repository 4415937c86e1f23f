// npm run conformance -- [--fixtures DIR] [--fork Cancun|Prague] [--only SUBSTRING] [--verbose]
// Runs every fixture file under DIR (default ../shared/conformance beside the project) through
// scripts/conformance/runner.ts; prints per-folder counts, the service-limit vectors with their reason, every
// failure, and the closing `N passed, N failed, N not applicable` line. Exit code 1 when any vector fails.

import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ConformanceRunner,
  type Counts,
  type Fork,
  type VectorResult,
  addVerdict,
  defaultFixturesDir,
  emptyCounts,
  fixtureFiles,
  folderOf,
} from './conformance/runner.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    fixtures: { type: 'string' },
    fork: { type: 'string', default: 'Cancun' },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const fork = values.fork as string;
if (fork !== 'Cancun' && fork !== 'Prague') {
  console.error(`conformance: --fork must be Cancun or Prague, not ${fork}`);
  process.exit(2);
}
const dir = resolve(values.fixtures ?? defaultFixturesDir(root));
if (!existsSync(dir)) {
  console.error(`conformance: no fixtures at ${dir} (pass --fixtures DIR; see docs/conformance.md)`);
  process.exit(2);
}

let files = fixtureFiles(dir);
if (values.only !== undefined) files = files.filter((f) => relative(dir, f).includes(values.only!));
console.log(`conformance: ${files.length} fixture files under ${dir}, fork ${fork}`);

const runner = await ConformanceRunner.create(fork as Fork);
const perFolder = new Map<string, Counts>();
const total = emptyCounts();
const limits: VectorResult[] = [];
const failures: VectorResult[] = [];
const slow: { file: string; ms: number }[] = [];
const t0 = performance.now();
const cpu0 = process.cpuUsage();
for (const f of files) {
  const label = relative(dir, f);
  const r = await runner.runFile(f, label);
  const folder = folderOf(dir, f);
  let c = perFolder.get(folder);
  if (c === undefined) perFolder.set(folder, (c = emptyCounts()));
  for (const v of r.results) {
    addVerdict(c, v.verdict);
    addVerdict(total, v.verdict);
    if (v.verdict === 'service_limit') limits.push(v);
    if (v.verdict === 'fail') failures.push(v);
  }
  if (r.ms > 10_000) slow.push({ file: label, ms: r.ms });
  if (values.verbose) console.log(`${label}: ${r.results.length} vectors, ${r.ms.toFixed(0)} ms`);
}
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);

const line = (c: Counts): string =>
  `${c.pass} passed, ${c.fail} failed, ${c.not_applicable} not applicable, ${c.service_limit} service limit`;
console.log('\nper folder:');
for (const [folder, c] of [...perFolder].sort(([a], [b]) => a.localeCompare(b))) console.log(`  ${folder}: ${line(c)}`);
if (limits.length > 0) {
  console.log(`\nservice limit (${limits.length}):`);
  const byReason = new Map<string, number>();
  for (const v of limits) byReason.set(v.reason ?? '?', (byReason.get(v.reason ?? '?') ?? 0) + 1);
  for (const [reason, n] of byReason) console.log(`  ${reason}: ${n}`);
  for (const v of limits) console.log(`  ${v.file} ${v.test} #${v.index}: ${v.reason}`);
}
if (failures.length > 0) {
  console.log(`\nfailures (${failures.length}):`);
  for (const v of failures) console.log(`  ${v.file} ${v.test} #${v.index}: ${v.reason}`);
}
if (slow.length > 0) {
  console.log('\nfiles over 10 s:');
  for (const s of slow) console.log(`  ${s.file}: ${(s.ms / 1000).toFixed(1)} s`);
}
console.log(`\ntime: ${seconds.toFixed(0)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU`);
console.log(`service limit: ${total.service_limit}`);
console.log(`${total.pass} passed, ${total.fail} failed, ${total.not_applicable} not applicable`);
process.exit(total.fail > 0 ? 1 : 0);
