// The Node.js worker passes spec/vectors and serves a real transfer.
// Run: node --test workers/node/toll_worker_test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Frames, reply } = require('./toll_worker.js');

const VECTORS = path.join(__dirname, '..', '..', 'spec', 'vectors');

function rows(name) {
  return fs.readFileSync(path.join(VECTORS, name), 'utf8').split('\n')
    .filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'));
}

function serveAll(input, chunk) {
  const f = new Frames({ kind: null, k: 0 });
  const out = [];
  for (let i = 0; i < input.length && !f.done; i += chunk) out.push(...f.feed(input.subarray(i, i + chunk)));
  return Buffer.concat(out);
}

test('frames decode and encode as specified', () => {
  const frames = rows('frames.tsv');
  assert.ok(frames.length >= 10);
  for (const [name, type, kind, status, seq, count, sum, items, hex] of frames) {
    const b = Buffer.from(hex, 'hex');
    if (type === 'request') {
      assert.strictEqual(b.toString('latin1', 0, 4), 'TOLL', name);
      assert.strictEqual(b.readUInt32LE(4), kind === 'data' ? 1 : 2, name);
      assert.strictEqual(b.readUInt32LE(8), Number(seq), name);
      assert.strictEqual(b.readUInt32LE(12), Number(count), name);
      const want = items === '-' ? [] : items.split(',').map(Number);
      const got = [];
      for (let i = 16; i < b.length; i += 4) got.push(b.readInt32LE(i));
      assert.deepStrictEqual(got, want, name);
    } else {
      const enc = reply(status === 'ok' ? 0 : 1, Number(seq), Number(count), BigInt(sum));
      assert.strictEqual(enc.toString('hex'), hex, name);
    }
  }
});

test('sessions produce exactly the expected bytes, whatever the chunking', () => {
  const sessions = rows('sessions.tsv');
  assert.ok(sessions.length >= 4);
  for (const [name, inHex, outHex] of sessions) {
    const input = Buffer.from(inHex, 'hex');
    for (const chunk of [input.length || 1, 7, 1, 4096]) {
      assert.strictEqual(serveAll(input, chunk).toString('hex'), outHex, `${name} (chunk ${chunk})`);
    }
  }
});

function frame(seq, count) {
  const b = Buffer.alloc(16 + 4 * count);
  b.write('TOLL', 0, 'latin1');
  b.writeUInt32LE(1, 4);
  b.writeUInt32LE(seq, 8);
  b.writeUInt32LE(count, 12);
  for (let i = 0; i < count; i++) b.writeInt32LE(123, 16 + 4 * i);
  return b;
}

test('a real unix-socket transfer and spawns, as toll runs them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toll-node-'));
  const sockPath = path.join(dir, 's');
  const worker = spawn(process.execPath, ['--expose-gc', path.join(__dirname, 'toll_worker.js')],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let waiting = null;
  let pending = '';
  worker.stdout.on('data', (d) => {
    pending += d;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
      if (waiting) { const w = waiting; waiting = null; w(); }
    }
  });
  const next = () => new Promise((resolve) => {
    if (lines.length) return resolve(lines.shift());
    waiting = () => resolve(lines.shift());
  });
  worker.stdin.write('{"op":"hello"}\n');
  const hello = await next();
  assert.strictEqual(hello.runtime, 'node');
  assert.deepStrictEqual(hello.transports, ['pipe', 'unix', 'tcp']);

  const server = net.createServer();
  await new Promise((r) => server.listen(sockPath, r));
  const accepted = new Promise((r) => server.once('connection', r));
  worker.stdin.write(JSON.stringify({ op: 'transfer', transport: 'unix', path: sockPath }) + '\n');
  const conn = await accepted;
  assert.deepStrictEqual(await next(), { ok: true, event: 'ready' });
  let got = Buffer.alloc(0);
  conn.on('data', (d) => { got = Buffer.concat([got, d]); });
  const readReply = async () => {
    while (got.length < 24) await new Promise((r) => setTimeout(r, 1));
    const r = got.subarray(0, 24);
    got = got.subarray(24);
    return r;
  };
  let seq = 0;
  for (const count of [0, 1, 70000]) {
    conn.write(frame(seq, count));
    const r = await readReply();
    assert.strictEqual(r.readUInt32LE(8), seq);
    assert.strictEqual(r.readBigInt64LE(16), BigInt(123 * count));
    seq++;
  }
  const end = frame(seq, 0);
  end.writeUInt32LE(2, 4);
  conn.write(end);
  await readReply();
  assert.deepStrictEqual(await next(), { ok: true, event: 'done', frames: 3, items: 70001 });
  // Every trial counts the tasks' heap, not only the first: the resident set
  // hardly grows once V8 has the pages of an earlier trial's tasks.
  for (let trial = 1; trial <= 3; trial++) {
    worker.stdin.write('{"op":"spawn","unit":"async-task","n":5000}\n');
    const s = await next();
    assert.strictEqual(s.mem_how, 'v8-heap');
    assert.ok(s.made === 5000 && s.mem_kb >= 5000 * 0.2, `trial ${trial}: ${JSON.stringify(s)}`);
  }
  worker.stdin.write('{"op":"exit"}\n');
  await new Promise((r) => worker.on('exit', r));
  server.close();
});

test('spawn makes every unit and reports time and memory', async () => {
  const units = require('./toll_units.js');
  const a = await units.spawn('async-task', 500);
  assert.strictEqual(a.ok, true);
  assert.strictEqual(a.n, 500);
  assert.strictEqual(a.made, 500);
  assert.ok(a.ns > 0 && Number.isInteger(a.mem_kb) && a.mem_how === 'rss');
});

test('ring hops are n times m, and bad rings are refused', async () => {
  const units = require('./toll_units.js');
  const a = await units.ring('async-task', 7, 13);
  assert.strictEqual(a.hops, 91);
  assert.ok(a.ns > 0);
  assert.match((await units.ring('async-task', 1, 5)).error, /a ring needs/);
  assert.match((await units.spawn('fiber', 5)).error, /unknown unit "fiber"/);
});
