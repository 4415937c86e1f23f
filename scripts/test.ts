// `npm test`: the type checks, the canister wasm, then every vitest project, arranged so that a two-core
// machine is kept busy and nothing runs twice:
//   1. both type checks and the wasm build (when stale) side by side: the wasm is built once per run, here,
//      and the projects' global setups find it current;
//   2. `unit` (a file per core), then `wasm` (two files at a time), in one vitest run;
//   3. `e2e` and `e2e-agent` side by side, each in its own vitest run with its own shared devnet: their
//      files wait on blocks mined on the wall clock far more than they compute. Each project's devnet
//      starts with its run, not for the whole of step 2 (vitest starts every selected project's global
//      setup before the first file).
// Every vitest run ends with its files' times, slowest first (tests/support/file_times_reporter.ts).
// `npm test -- <vitest arguments>` (e.g. a file or `--project unit`) runs the type checks and one vitest run
// with those arguments. The long variants (the whole conformance suite, fuzzing at scale) run in CI after
// `npm test` (.ci/run).
import { spawn } from 'node:child_process';
import { ROOT } from '../src/devnet/build.js';

interface Step {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}

const tsx = (script: string, ...args: string[]): Step => ({ name: script, command: 'tsx', args: [script, ...args] });
const vitest = (name: string, ...args: string[]): Step => ({ name, command: 'vitest', args: ['run', ...args] });

/** Runs one step; with `prefix`, each output line is labelled with the step's name (steps run side by side). */
function run(step: Step, prefix: boolean): Promise<{ step: Step; code: number; seconds: number; startedAt: number }> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd: ROOT, stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    running.add(child);
    if (prefix) {
      for (const [from, to] of [
        [child.stdout!, process.stdout],
        [child.stderr!, process.stderr],
      ] as const) {
        let rest = '';
        from.setEncoding('utf8');
        from.on('data', (d: string) => {
          const lines = (rest + d).split('\n');
          rest = lines.pop()!;
          for (const l of lines) to.write(`[${step.name}] ${l}\n`);
        });
        from.on('end', () => rest !== '' && to.write(`[${step.name}] ${rest}\n`));
      }
    }
    const done = (code: number): void => {
      running.delete(child);
      resolve({ step, code, seconds: (Date.now() - startedAt) / 1000, startedAt });
    };
    child.on('error', (e) => {
      console.error(`test: ${step.name} did not start: ${e.message}`);
      done(1);
    });
    // 'close' comes after the child's output is all read (its 'exit' may come before).
    child.on('close', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

const running = new Set<ReturnType<typeof spawn>>();
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const c of running) c.kill(sig);
  });
}

const started = Date.now();
const summary: string[] = [];
let failed = false;

/** Runs lanes side by side, each lane's steps one after another; every step runs even if an earlier one failed. */
async function phase(lanes: Step[][]): Promise<void> {
  const prefix = lanes.length > 1;
  const results = await Promise.all(
    lanes.map(async (lane) => {
      const done: Awaited<ReturnType<typeof run>>[] = [];
      for (const step of lane) done.push(await run(step, prefix));
      return done;
    }),
  );
  for (const r of results.flat()) {
    const from = ((r.startedAt - started) / 1000).toFixed(0).padStart(5);
    summary.push(`  ${r.step.name.padEnd(28)} ${r.code === 0 ? 'ok    ' : `FAILED (exit ${r.code})`} ${r.seconds.toFixed(0).padStart(5)} s  (from ${from} s)`);
    if (r.code !== 0) failed = true;
  }
}

const passThrough = process.argv.slice(2);
await phase([
  [{ name: 'tsc', command: 'tsc', args: ['--noEmit'] }],
  [{ name: 'tsc (canister)', command: 'tsc', args: ['--noEmit', '-p', 'tsconfig.canister.json'] }],
  [tsx('scripts/build.ts', '--if-stale', '--prepare')],
]);
if (!failed) {
  if (passThrough.length > 0) await phase([[vitest('vitest', ...passThrough)]]);
  else {
    await phase([
      [vitest('unit, wasm', '--project', 'unit', '--project', 'wasm')],
      [vitest('e2e-agent', '--project', 'e2e-agent'), vitest('e2e', '--project', 'e2e')],
    ]);
  }
}
console.log(`\nnpm test: ${((Date.now() - started) / 60_000).toFixed(1)} min\n${summary.join('\n')}`);
process.exit(failed ? 1 : 0);
