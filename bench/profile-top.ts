/**
 * Reads V8 CPU profiles (`.cpuprofile`, from `node --cpu-prof`, e.g. `npm run bench:pipeline --
 * --cpu-prof DIR`) and prints where the time went: self time per function and per package
 * (a `node_modules` package, paysync's own folder under src/ or jobs/, or node's internals).
 *
 * Usage: npx tsx bench/profile-top.ts <file.cpuprofile|dir> [--top 15]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchCli } from './bench-cli.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

benchCli(import.meta.filename);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '15' } },
});
if (positionals.length !== 1) {
  console.error('usage: tsx bench/profile-top.ts <file.cpuprofile|dir> [--top 15]');
  process.exit(2);
}
const target = positionals[0]!;
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(target, name))
  : [target];
const top = Number(values.top);

/** Where a frame's code lives: a package, a paysync folder, or node itself. */
function ownerOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(src\/[^/]+|jobs|bin|migrations)\//.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  let total = 0;
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    total += ms;
    const where = frame.url
      ? `${frame.url.replace(/^.*?(node_modules|src|jobs)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
    const owner = ownerOf(frame.url, frame.functionName);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
  }
  const idle = byFunction.get('(idle)') ?? 0;
  const busy = total - idle;
  const show = (map: Map<string, number>) =>
    [...map]
      .filter(([key]) => key !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([key, ms]) =>
          `  ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${key}`,
      )
      .join('\n');
  console.log(`\n${file}: ${busy.toFixed(0)} ms busy of ${total.toFixed(0)} ms sampled`);
  console.log(`by package or folder (self time):\n${show(byOwner)}`);
  console.log(`by function (self time):\n${show(byFunction)}`);
}
