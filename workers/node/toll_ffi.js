// `ffi` for toll's Node.js worker (spec/wire.md): calls into
// workers/ffi/toll_ffi.c through N-API, the addon toll builds from
// workers/ffi/toll_ffi_napi.c with plain cc against node's headers and
// leaves in $TOLL_FFI_DIR. The timed loop calls null() or sum(buffer)
// `reps` times and does nothing else.
'use strict';

const path = require('node:path');

const ADDON = 'toll_ffi_napi.node';
let addon = null;
let why = null;

// The addon, loaded once; null (and `why`) when it cannot load.
function load() {
  if (addon === null && why === null) {
    const dir = process.env.TOLL_FFI_DIR;
    if (!dir) why = `TOLL_FFI_DIR is not set: toll sets it to where it built ${ADDON}`;
    else {
      try { addon = require(path.join(dir, ADDON)); } catch (e) { why = e.message.split('\n')[0]; }
    }
  }
  return addon;
}

// The bindings this worker can call now.
function bindings() {
  return process.env.TOLL_FFI_DIR && load() ? ['napi'] : [];
}

// Byte i = (seed + 131·i) mod 256 (spec/wire.md).
function pattern(n, seed) {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (seed + 131 * i) & 255;
  return b;
}

// One `ffi` command: the answer.
function run(cmd) {
  const { binding, n, reps, seed } = cmd;
  if (![n, reps, seed].every((v) => Number.isSafeInteger(v) && v >= 0) || reps < 1) {
    return { ok: false, error: '`ffi` needs whole numbers n, reps (at least 1) and seed' };
  }
  if (binding !== 'napi') return { ok: false, error: `no binding ${binding}: the node worker has napi` };
  const a = load();
  if (!a) return { ok: false, error: `napi: ${why}` };
  const buf = pattern(n, seed);
  const { sum } = a;
  let last = 0;
  // One call shape at every n, 0 included (a sum of no bytes).
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < reps; r++) last = sum(buf);
  const ns = Number(process.hrtime.bigint() - t0);
  return { ok: true, event: 'done', binding, n, reps, ns, sum: last };
}

module.exports = { bindings, pattern, run, ADDON };
