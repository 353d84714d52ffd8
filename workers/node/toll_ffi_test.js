// The Node.js worker's `ffi` binding (N-API) returns spec/vectors/ffi.tsv's
// sums, and spec/vectors/ffi_receipt.tsv's receipts passed every way, and its callback's counts. The addon is built here as toll builds it (cc -O2 -fPIC -shared
// against node's headers); without the headers the test says how to get them.
// Run: node --test workers/node/toll_ffi_test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');

const FFI = path.join(__dirname, '..', 'ffi');
const VECTORS = path.join(__dirname, '..', '..', 'spec', 'vectors', 'ffi.tsv');

// node's headers: beside its prefix, else where distributions put them.
function headers() {
  const prefix = process.config.variables.node_prefix || '/usr';
  return [path.join(prefix, 'include', 'node'), '/usr/include/node', '/usr/local/include/node']
    .find((d) => fs.existsSync(path.join(d, 'node_api.h')));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toll-ffi-node-'));
const include = headers();
const skip = !include && 'no node_api.h: apt-get install libnode-dev (node\'s headers)';
if (include) {
  execFileSync(process.env.CC || 'cc', ['-O2', '-fPIC', '-shared', '-Wall', `-I${include}`, `-I${FFI}`,
    '-o', path.join(dir, 'toll_ffi_napi.node'), path.join(FFI, 'toll_ffi_napi.c'), path.join(FFI, 'toll_ffi.c')]);
}
process.env.TOLL_FFI_DIR = dir;
const ffi = require('./toll_ffi.js');

test('napi returns every vector\'s sum', { skip }, () => {
  const rows = fs.readFileSync(VECTORS, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.split('\t'));
  assert.ok(rows.length >= 8);
  for (const [name, n, seed, sum] of rows) {
    const a = ffi.run({ op: 'ffi', binding: 'napi', n: Number(n), reps: 3, seed: Number(seed) });
    assert.strictEqual(a.ok, true, `${name}: ${JSON.stringify(a)}`);
    assert.strictEqual(a.sum, Number(sum), name);
    assert.ok(a.ns > 0, name);
  }
});

test('napi returns every receipt vector, every way', { skip }, () => {
  const rows = fs.readFileSync(VECTORS.replace('ffi.tsv', 'ffi_receipt.tsv'), 'utf8').split('\n')
    .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'));
  assert.ok(rows.length >= 8);
  for (const pass of ['pinned', 'copied', 'string']) {
    for (const [name, n, seed, bytes, string] of rows) {
      const a = ffi.run({ op: 'ffi', binding: 'napi', pass, touch: 'receipt', n: Number(n), reps: 3, seed: Number(seed) });
      assert.strictEqual(a.receipt, Number(pass === 'string' ? string : bytes), `${pass} ${name}: ${JSON.stringify(a)}`);
    }
    const a = ffi.run({ op: 'ffi', binding: 'napi', pass, touch: 'all', n: 1000, reps: 1, seed: 42 });
    const value = pass === 'string' ? Buffer.from(ffi.text(1000, 42)) : ffi.pattern(1000, 42);
    assert.strictEqual(a.sum, value.reduce((x, y) => x + y, 0), `${pass} sum`);
  }
});

test('napi\'s callback counts every upcall', { skip }, () => {
  for (const n of [0, 1, 2, 1000]) {
    const a = ffi.run({ op: 'ffi', binding: 'napi', pass: 'callback', n, reps: 3, seed: 0 });
    assert.strictEqual(a.count, n, `callback, n = ${n}: ${JSON.stringify(a)}`);
  }
});

test('hello offers napi; a binding it lacks is refused naming the one it has', { skip }, () => {
  const w = spawnSync(process.execPath, [path.join(__dirname, 'toll_worker.js')], {
    input: '{"op":"hello"}\n{"op":"ffi","binding":"jni","n":0,"reps":1,"seed":0}\n{"op":"exit"}\n',
    env: { ...process.env, TOLL_FFI_DIR: dir },
  });
  const [hello, refused] = w.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
  assert.deepStrictEqual(hello.bindings, ['napi']);
  assert.ok(hello.ops.includes('ffi'));
  assert.deepStrictEqual(refused, { ok: false, error: 'no binding jni: the node worker has napi' });
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
