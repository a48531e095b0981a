import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`): inclusive time of a few code areas, self time by
 * area (our modules, each dependency, V8/GC) and the hottest functions.
 * `npx tsx bench/profile-summary.ts <dir> [top] [skip]` reads every .cpuprofile under <dir>,
 * ignoring the first `skip` seconds (start-up); see bench/README.md for how to record them.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const ROOT = join(__dirname, '..');

/** Where a function lives: `node_modules/<package>`, a top-level folder of ours, or a V8 category. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  const path = url.replace(/^file:\/\//, '');
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (modules) return `node_modules/${modules[1]}`;
  if (path.startsWith('node:') || !path.startsWith('/')) return '(node internals)';
  if (path.includes('/convengine-workflows') || path.includes('workflow-bundle')) return '(workflow bundle)';
  const rel = relative(ROOT, path);
  return rel.startsWith('..') ? path : (rel.split('/')[0] ?? rel);
}

/** [node id, ms] of every sample taken after the first `skipMs` of the profile (start-up). */
function samplesAfter(profile: CpuProfile, skipMs: number): [number, number][] {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const out: [number, number][] = [];
  let at = 0;
  for (let i = 0; i < samples.length; i++) {
    at += (deltas[i] ?? 0) / 1000;
    if (at >= skipMs) out.push([samples[i] as number, (deltas[i] ?? 0) / 1000]);
  }
  return out;
}

/**
 * Inclusive time of code areas: a sample counts for a probe when any frame on its stack is in
 * that area, e.g. everything under our activity functions (their DB and LLM calls included).
 */
export const PROBES: Record<string, (area: string, fn: string) => boolean> = {
  'inside activity functions (activities/)': (area) => area === 'activities',
  'payload conversion (@temporalio/common)': (area, fn) =>
    area === 'node_modules/@temporalio/common' && /Payload/.test(fn),
  'core bridge calls (@temporalio/core-bridge)': (area) => area === 'node_modules/@temporalio/core-bridge',
  'workflow code (bundle)': (area) => area === '(workflow bundle)',
  'dev server engine (devserver/)': (area) => area === 'devserver',
  'gRPC (@grpc/grpc-js)': (area) => area === 'node_modules/@grpc/grpc-js',
  'garbage collector': (_area, fn) => fn === '(garbage collector)',
};

const RUNTIME_AREAS = new Set(['(native / V8 builtins)', '(node internals)', '(program)']);
const OURS =
  /^(activities|core|db|workflows|demo|scripted-llm|config|api|worker|bench)$|node_modules\/(drizzle-orm|pg|pg-protocol|pg-pool|pg-types|postgres-.*|ajv.*|fast-uri|@anthropic-ai\/sdk|jsonpath-plus|pgsql-ast-parser|moo|nearley|zod|yaml)$/;
const TEMPORAL = /node_modules\/(@temporalio\/.*|rxjs|long|protobufjs|source-map|nexus-rpc|ms)$|^\(workflow bundle\)$/;

/** Who a busy sample is for: our code (with its DB/LLM/JSON libraries), the Temporal SDK, the dev server, ... */
export function ownerOf(area: string): string {
  if (OURS.test(area)) return 'ConvEngine code + its libraries (drizzle, pg, ajv, SDKs)';
  if (TEMPORAL.test(area)) return 'Temporal SDK (JS: worker, common, proto, core-bridge glue, rxjs, workflow sandbox)';
  if (area === 'devserver') return 'dev server engine';
  if (area === 'node_modules/@grpc/grpc-js') return 'gRPC (grpc-js)';
  if (/node_modules\/(tsx|webpack.*|enhanced-resolve|esbuild|@swc\/.*)$/.test(area)) return 'start-up (tsx, webpack)';
  return area;
}

/**
 * Busy time by owner. Native frames (V8 builtins, node internals) count for the nearest JS caller
 * on the stack, e.g. a socket write for the pg driver or a postMessage for the SDK.
 */
function owners(profile: CpuProfile, samples: [number, number][]): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, number>();
  for (const [id, ms] of samples) {
    const own = byId.get(id)?.callFrame;
    if (!own || own.functionName === '(idle)') continue;
    let area = areaOf(own.url, own.functionName);
    for (let at = parent.get(id); RUNTIME_AREAS.has(area) && at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame && frame.functionName !== '(root)') {
        const up = areaOf(frame.url, frame.functionName);
        if (!RUNTIME_AREAS.has(up)) area = up;
      }
    }
    const owner = ownerOf(area);
    totals.set(owner, (totals.get(owner) ?? 0) + ms);
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

function inclusive(profile: CpuProfile, samples: [number, number][]): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, number>();
  for (const [id, ms] of samples) {
    const hit = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame) break;
      const area = areaOf(frame.url, frame.functionName);
      for (const [name, probe] of Object.entries(PROBES)) if (probe(area, frame.functionName)) hit.add(name);
    }
    for (const name of hit) totals.set(name, (totals.get(name) ?? 0) + ms);
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

export interface ProfileSummary {
  file: string;
  /** Sampled time after the skipped start-up, idle included. */
  totalMs: number;
  busyMs: number;
  areas: [string, number][];
  functions: [string, number][];
  probes: [string, number][];
  owners: [string, number][];
}

export function summarize(file: string, top = 15, skipMs = 0): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const samples = samplesAfter(profile, skipMs);
  const self = new Map<number, number>();
  for (const [id, ms] of samples) self.set(id, (self.get(id) ?? 0) + ms);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const ms = self.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    total += ms;
    areas.set(area, (areas.get(area) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${area}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  const busyMs = total - (areas.get('(idle)') ?? 0);
  return {
    file,
    totalMs: total,
    busyMs,
    areas: sorted(areas),
    functions: sorted(functions),
    probes: inclusive(profile, samples),
    owners: owners(profile, samples),
  };
}

function profilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return profilesUnder(path);
    return name.endsWith('.cpuprofile') ? [path] : [];
  });
}

function print(summary: ProfileSummary): void {
  const pct = (ms: number) => `${((100 * ms) / Math.max(1, summary.busyMs)).toFixed(1)}%`;
  const s = (ms: number) => (ms / 1000).toFixed(1);
  console.log(`\n## ${summary.file} — ${s(summary.totalMs)} s sampled, ${s(summary.busyMs)} s busy (% of busy)`);
  console.log('\nBusy time by owner (native frames counted for their JS caller):');
  for (const [owner, ms] of summary.owners)
    console.log(`  ${pct(ms).padStart(6)}  ${(ms / 1000).toFixed(2)} s  ${owner}`);
  console.log('\nInclusive time of code areas:');
  for (const [probe, ms] of summary.probes)
    console.log(`  ${pct(ms).padStart(6)}  ${(ms / 1000).toFixed(2)} s  ${probe}`);
  console.log('\nSelf time by area:');
  for (const [area, ms] of summary.areas.filter(([a]) => a !== '(idle)'))
    console.log(`  ${pct(ms).padStart(6)}  ${(ms / 1000).toFixed(2)} s  ${area}`);
  console.log('\nHottest functions (self time):');
  for (const [fn, ms] of summary.functions.filter(([f]) => !f.startsWith('(idle)')))
    console.log(`  ${pct(ms).padStart(6)}  ${fn}`);
}

if (require.main === module) {
  const [dir, top, skip] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: tsx bench/profile-summary.ts <dir with .cpuprofile files> [top] [skip start-up seconds]');
    process.exit(2);
  }
  for (const file of profilesUnder(dir)) print(summarize(file, Number(top ?? 15), Number(skip ?? 0) * 1000));
}
