// `ffi` for toll's Node.js worker (spec/wire.md): calls into
// workers/ffi/toll_ffi.c through N-API, the addon toll builds from
// workers/ffi/toll_ffi_napi.c with plain cc against node's headers and
// leaves in $TOLL_FFI_DIR. The ways: "pinned", a Buffer made once and read
// in place; "copied", Buffer.from(buffer) each call (a copy on the JS side);
// "string", a JS string the addon copies out as UTF-8 each call
// (napi_get_value_string_utf8). touch "all" calls sum, "receipt" receipt.
// The timed loop calls one of them `reps` times and does nothing else.
// "callback": the addon has C call a JS function back n times
// (napi_call_function), which counts them.
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

// The string way's text: character i = 1 + (pattern byte mod 127), ASCII without NUL.
function text(n, seed) {
  const b = pattern(n, seed);
  for (let i = 0; i < n; i++) b[i] = 1 + (b[i] % 127);
  return b.toString('latin1');
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
  const pass = cmd.pass ?? 'pinned';
  const touch = cmd.touch ?? 'all';
  if (!['pinned', 'copied', 'string', 'callback'].includes(pass) || !['all', 'receipt'].includes(touch)) {
    return { ok: false, error: `napi passes pinned, copied or string, or calls back, and touches all or receipt, not ${pass} and ${touch}` };
  }
  if (pass === 'callback') return callbacks(a, binding, n, reps);
  const f = touch === 'all' ? (pass === 'string' ? a.sum_str : a.sum) : (pass === 'string' ? a.receipt_str : a.receipt);
  const value = pass === 'string' ? text(n, seed) : pattern(n, seed);
  let last = 0;
  // One call shape at every n, 0 included (no bytes).
  const t0 = process.hrtime.bigint();
  if (pass === 'copied') for (let r = 0; r < reps; r++) last = f(Buffer.from(value));
  else for (let r = 0; r < reps; r++) last = f(value);
  const ns = Number(process.hrtime.bigint() - t0);
  return { ok: true, event: 'done', binding, n, reps, ns, [touch === 'all' ? 'sum' : 'receipt']: last };
}

// reps calls, each having C call a counting JS function back n times.
function callbacks(a, binding, n, reps) {
  let count = 0;
  const upcall = () => { count++; };
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < reps; r++) {
    count = 0;
    a.callback(upcall, n);
  }
  const ns = Number(process.hrtime.bigint() - t0);
  return { ok: true, event: 'done', binding, n, reps, ns, count };
}

module.exports = { bindings, pattern, text, run, ADDON };
