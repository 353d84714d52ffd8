// spawn and ring (spec/wire.md) for toll's Node.js worker: async functions as
// units; the ring hands the token on with one promise per message.
'use strict';

const UNITS = ['async-task'];

const now = () => process.hrtime.bigint();

// The memory figure: V8's heap in use after a full collection, when toll has
// started node with --expose-gc. The resident set hardly moves once V8 has
// pages that earlier units freed, so it is only the fallback.
const memory = typeof global.gc === 'function'
  ? { how: 'v8-heap', kb: () => { global.gc(); return Math.round(process.memoryUsage().heapUsed / 1024); } }
  : { how: 'rss', kb: () => Math.round(process.memoryUsage.rss() / 1024) };

async function spawnTasks(n) {
  let openGate;
  const gate = new Promise((resolve) => { openGate = resolve; });
  let ready = 0;
  let allReady;
  const whenAllReady = new Promise((resolve) => { allReady = resolve; });
  const unit = async () => {
    if (++ready === n) allReady();
    await gate;
  };
  const m0 = memory.kb();
  const t0 = now();
  const units = new Array(n);
  for (let i = 0; i < n; i++) units[i] = unit();
  await whenAllReady;
  const ns = Number(now() - t0);
  const memKb = memory.kb() - m0;
  const made = ready;
  openGate();
  await Promise.all(units);
  return { ns, memKb, made };
}

// A unit's inbox: holds one token, or the resolver of the unit waiting for it.
class Inbox {
  constructor() { this.waiter = null; this.value = 0; this.full = false; }
  put(v) {
    const w = this.waiter;
    if (w) { this.waiter = null; w(v); } else { this.value = v; this.full = true; }
  }
  get() {
    if (this.full) { this.full = false; return Promise.resolve(this.value); }
    return new Promise((resolve) => { this.waiter = resolve; });
  }
}

async function ringTasks(n, m) {
  const last = n * m;
  const boxes = Array.from({ length: n }, () => new Inbox());
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  const unit = async (inbox, outbox) => {
    for (let k = 0; k < m; k++) {
      const v = (await inbox.get()) + 1;
      if (v === last) { finish(v); return; }
      outbox.put(v);
    }
  };
  const units = boxes.map((b, i) => unit(b, boxes[(i + 1) % n]));
  const t0 = now();
  boxes[0].put(0);
  const hops = await done;
  const ns = Number(now() - t0);
  await Promise.all(units);
  return { ns, hops };
}

const unknown = (unit) => ({ ok: false, error: `unknown unit ${JSON.stringify(unit)}: the node worker has ${UNITS.join(', ')}` });
const whole = (x) => Number.isSafeInteger(x);

async function spawn(unit, n) {
  if (!whole(n) || n < 1) return { ok: false, error: 'spawn needs a whole number n of at least 1' };
  if (unit !== 'async-task') return unknown(unit);
  try {
    const { ns, memKb, made } = await spawnTasks(n);
    return { ok: true, event: 'done', unit, n, made, ns, mem_kb: memKb, mem_how: memory.how };
  } catch (e) {
    return { ok: false, limit: true, created: 0, error: `created fewer than ${n} units: ${e.message}` };
  }
}

async function ring(unit, n, m) {
  if (!whole(n) || !whole(m) || n < 2 || m < 1) return { ok: false, error: 'a ring needs n of at least 2 and m of at least 1' };
  if (unit !== 'async-task') return unknown(unit);
  const { ns, hops } = await ringTasks(n, m);
  return { ok: true, event: 'done', unit, n, m, hops, ns };
}

module.exports = { UNITS, spawn, ring };
