'use strict';
// The CLI compiled once per source change, so `npm start` on a checkout loads plain JavaScript instead of
// transpiling ~400 TypeScript modules through tsx's loader hooks on every start (about half of the
// start-up wall time before the first line is printed). esbuild (tsx's own transpiler, so the output
// is what tsx would run) writes each module to node_modules/.cache/convengine/cli/<stamp>/ with the
// source tree's layout, so __dirname-relative paths (bin/runtime-assets.js) keep working and packages
// resolve from the checkout's node_modules.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { RUNTIME_ASSETS } = require('./runtime-assets');

const CHECKOUT = path.join(__dirname, '..');
/** The folders `npm run build` compiles (tsconfig.build.json). */
const COMPILED_DIRS = [
  'core',
  'workflows',
  'activities',
  'worker',
  'api',
  'db',
  'devserver',
  'cli',
  'config',
  'observability',
  'scripted-llm',
  'demo',
];
/** Those, plus the runtime assets outside them (the migrations are in db/ already). */
const SOURCE_DIRS = [
  ...COMPILED_DIRS,
  ...RUNTIME_ASSETS.filter((asset) => !COMPILED_DIRS.includes(asset.split(path.sep)[0])),
];
const STAMP_FILES = [
  'tsconfig.json',
  'package-lock.json',
  path.join('bin', 'compiled-cli.js'),
  path.join('bin', 'runtime-assets.js'),
];
const cacheRoot = (root) => path.join(root, 'node_modules', '.cache', 'convengine', 'cli');
const KEEP_BUILDS = 3;

function listFiles(dir, into) {
  if (!fs.existsSync(dir)) return into;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(full, into);
    else if (entry.isFile()) into.push(full);
  }
  return into;
}

/** Every source file, and a stamp of their paths, sizes and modification times (a stat each, no reads). */
function sourceStamp(root = CHECKOUT) {
  const files = SOURCE_DIRS.flatMap((dir) => listFiles(path.join(root, dir), [])).sort();
  const hash = crypto.createHash('sha256');
  for (const file of [...files, ...STAMP_FILES.map((f) => path.join(root, f))]) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    hash.update(`${path.relative(root, file)}\0${stat ? `${stat.size}:${stat.mtimeMs}` : '-'}\0`);
  }
  return { files, stamp: hash.digest('hex').slice(0, 16) };
}

function compileInto(root, outDir, files) {
  const esbuild = require('esbuild');
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  esbuild.buildSync({
    entryPoints: sources,
    outdir: outDir,
    outbase: root,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    bundle: false,
    // Linked maps: stack traces map back with NODE_OPTIONS=--enable-source-maps, at no cost otherwise.
    sourcemap: 'linked',
    logLevel: 'error',
  });
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    const target = path.join(outDir, path.relative(root, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}

function pruneOldBuilds(cache, keep) {
  const builds = fs
    .readdirSync(cache, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.includes('.tmp-') && e.name !== keep)
    .map((e) => ({ dir: path.join(cache, e.name), mtime: fs.statSync(path.join(cache, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEEP_BUILDS - 1)) fs.rmSync(old.dir, { recursive: true, force: true });
}

/**
 * The compiled CLI's entry module for the current sources, built first when they changed. Builds go
 * to a private temporary folder renamed into place, so concurrent starts never see half a build.
 */
function compiledCliEntry(root = CHECKOUT) {
  const { files, stamp } = sourceStamp(root);
  const cache = cacheRoot(root);
  const outDir = path.join(cache, stamp);
  const entry = path.join(outDir, 'cli', 'main.js');
  if (fs.existsSync(entry)) return entry;
  fs.mkdirSync(cache, { recursive: true });
  const tmpDir = `${outDir}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    compileInto(root, tmpDir, files);
    fs.renameSync(tmpDir, outDir);
  } catch (err) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    if (!fs.existsSync(entry)) throw err; // another start won the race otherwise
  }
  pruneOldBuilds(cache, stamp);
  return entry;
}

module.exports = { compiledCliEntry, sourceStamp, SOURCE_DIRS };
