import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyHeapGrowth } from '../../src/daemon/heap-growth.ts';

const HEAP_GROWTH = fileURLToPath(new URL('../../src/daemon/heap-growth.ts', import.meta.url));

/**
 * The largest heap a process uses while it keeps about 30 MB and churns short-lived objects,
 * in MB, after `applyHeapGrowth(percent)`: how far V8 lets the heap grow before a full
 * collection, which is what the daemon's RSS saws with.
 */
function peakHeapMb(percent: number): number {
  const script = `
    const v8 = await import('node:v8');
    const { applyHeapGrowth } = await import(${JSON.stringify(HEAP_GROWTH)});
    applyHeapGrowth(${percent});
    const kept = Array.from({ length: 300_000 }, (_, i) => ({ i, s: 'x'.repeat(40) + i }));
    const ring = new Array(200_000);
    let peak = 0;
    for (let n = 0; n < 1_500_000; n++) {
      ring[n % ring.length] = { n, s: 'y'.repeat(20) + n, a: [n, n + 1] };
      if (n % 10_000 === 0) peak = Math.max(peak, v8.getHeapStatistics().used_heap_size);
    }
    console.log(Math.round(peak / 1048576), kept.length);
  `;
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  return Number(out.split(' ')[0]);
}

describe('PAYSYNC_HEAP_GROWTH_PERCENT', () => {
  it('set in a running process, it bounds how far the heap grows before a full collection', () => {
    // V8 alone lets this heap grow to about 450 MB here; at 30 % it stays under 200 MB.
    const own = peakHeapMb(0);
    const bounded = peakHeapMb(30);
    expect(bounded).toBeLessThan(own * 0.7);
  });

  it('keeps a --heap-growing-percent given to node, and 0 leaves the sizing to V8', () => {
    expect(applyHeapGrowth(50, ['--heap-growing-percent=20'])).toEqual({
      percent: 20,
      from: 'node flag',
    });
    expect(applyHeapGrowth(0, [])).toEqual({ percent: undefined, from: 'V8' });
  });
});
