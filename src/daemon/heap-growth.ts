import { setFlagsFromString } from 'node:v8';

/** V8's heap growth in this process, in percent (undefined: V8's own), and what set it. */
export interface HeapGrowth {
  readonly percent: number | undefined;
  readonly from: 'node flag' | 'PAYSYNC_HEAP_GROWTH_PERCENT' | 'V8';
}

const NODE_FLAG = /^--heap[-_]growing[-_]percent(?:=(\d+))?$/;

/**
 * Sets how far V8 lets the JavaScript heap grow past what its last full garbage collection
 * kept (`PAYSYNC_HEAP_GROWTH_PERCENT`), for a long-running role. V8 reads the setting at each
 * full collection, so setting it once the process runs takes effect from the next one. Left
 * to itself V8 lets a busy daemon's heap grow up to fourfold before collecting, and the RSS
 * saws by about 100 MB (docs/performance.md, "Flat in time"). A `--heap-growing-percent` given
 * to node is kept; 0 leaves the sizing to V8.
 */
export function applyHeapGrowth(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
): HeapGrowth {
  for (const arg of execArgv) {
    const given = NODE_FLAG.exec(arg);
    if (given) return { percent: given[1] ? Number(given[1]) : undefined, from: 'node flag' };
  }
  if (percent === 0) return { percent: undefined, from: 'V8' };
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return { percent, from: 'PAYSYNC_HEAP_GROWTH_PERCENT' };
}
