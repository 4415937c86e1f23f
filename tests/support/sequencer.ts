// The order vitest hands test files to its workers: longest first across the projects of a group, so that on
// two cores the last files to start are short ones and neither core idles while the other ends a long file
// (a file that starts last and runs two minutes is two minutes of one idle core). A file's length is its time
// in vitest's own cache from an earlier run here (node_modules/.vite), else its time in tests/file-times.json
// (measured, committed: a fresh clone has no cache), else 0 (new files run last; they are usually short).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const WEIGHTS_PATH = new URL('../file-times.json', import.meta.url);

/** `project:path` to seconds, as tests/file-times.json holds them. */
function committedSeconds(): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(WEIGHTS_PATH, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const committed = committedSeconds();
    const root = this.ctx.config.root;
    const ms = (f: TestSpecification): number => {
      const key = `${f.project.name}:${relative(root, f.moduleId)}`;
      return this.ctx.cache.getFileTestResults(key)?.duration ?? (committed.get(key) ?? 0) * 1000;
    };
    const weight = new Map(files.map((f) => [f, ms(f)]));
    return [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || weight.get(b)! - weight.get(a)!,
    );
  }
}
