#!/usr/bin/env node
// toll's Node.js worker: spec/wire.md over stdin/stdout, standard library only.
// Its `ffi` binding (N-API) is in toll_ffi.js.
// Pipes (fds 3 and 4, inherited from toll) are served with blocking reads;
// unix and TCP sockets through the event loop. Both feed one frame parser.
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const readline = require('node:readline');
const units = require('./toll_units.js');
const ffi = require('./toll_ffi.js');

const DATA = 1, END = 2, OK = 0, BAD_FRAME = 1;
const HEADER = 16, REPLY = 24;

function reply(status, seq, count, sum) {
  const r = Buffer.alloc(REPLY);
  r.write('TOLR', 0, 'latin1');
  r.writeUInt32LE(status, 4);
  r.writeUInt32LE(seq, 8);
  r.writeUInt32LE(count, 12);
  r.writeBigInt64LE(BigInt(sum), 16);
  return r;
}

// TOLL_WORKER_FAULT: exit:K exits (3) instead of answering the first DATA frame
// of K or more items; garbage:K answers that frame with 24 bytes of 0xAB.
function parseFault(text) {
  const m = /^(exit|garbage):(\d+)$/.exec(text || '');
  return m ? { kind: m[1], k: Number(m[2]) } : { kind: null, k: 0 };
}

// Parses request frames out of whatever chunks arrive, summing items as they
// stream past; feed() returns the replies to send and whether serving is over.
class Frames {
  constructor(fault) {
    this.fault = fault;
    this.header = Buffer.alloc(HEADER);
    this.have = 0; // header bytes held
    this.left = 0; // item bytes still to come in the current frame
    this.carry = Buffer.alloc(4);
    this.carried = 0; // bytes of a split item held in carry
    this.sum = 0;
    this.seq = 0;
    this.count = 0;
    this.expected = 0;
    this.frames = 0;
    this.items = 0;
    this.done = false;
  }

  feed(buf) {
    const out = [];
    let i = 0;
    while (i < buf.length && !this.done) {
      if (this.left === 0) {
        const take = Math.min(HEADER - this.have, buf.length - i);
        buf.copy(this.header, this.have, i, i + take);
        this.have += take;
        i += take;
        if (this.have < HEADER) break;
        this.have = 0;
        this.startFrame(out);
        continue;
      }
      if (this.carried > 0) { // finish an item split across chunks
        while (this.carried < 4 && i < buf.length) { this.carry[this.carried++] = buf[i++]; this.left--; }
        if (this.carried < 4) break;
        this.sum += this.carry.readInt32LE(0);
        this.carried = 0;
      } else {
        const whole = Math.min(this.left, buf.length - i) & ~3;
        for (let j = i; j < i + whole; j += 4) this.sum += buf.readInt32LE(j);
        i += whole;
        this.left -= whole;
        // Fewer than 4 bytes of an item left in this chunk: hold them.
        while (this.left > 0 && i < buf.length) { this.carry[this.carried++] = buf[i++]; this.left--; }
      }
      if (this.left === 0) this.endFrame(out);
    }
    return out;
  }

  startFrame(out) {
    const h = this.header;
    const magicOk = h.toString('latin1', 0, 4) === 'TOLL';
    const kind = h.readUInt32LE(4);
    this.seq = h.readUInt32LE(8);
    this.count = h.readUInt32LE(12);
    if (!magicOk || (kind !== DATA && kind !== END) || this.seq !== this.expected) {
      out.push(reply(BAD_FRAME, this.seq, 0, 0));
      this.done = true;
    } else if (kind === END) {
      out.push(reply(OK, this.seq, 0, 0));
      this.done = true;
    } else {
      if (this.fault.kind === 'exit' && this.count >= this.fault.k) process.exit(3);
      this.sum = 0;
      this.left = this.count * 4;
      if (this.left === 0) this.endFrame(out);
    }
  }

  endFrame(out) {
    const garbage = this.fault.kind === 'garbage' && this.count >= this.fault.k;
    out.push(garbage ? Buffer.alloc(REPLY, 0xab) : reply(OK, this.seq, this.count, this.sum));
    this.frames++;
    this.items += this.count;
    this.expected = (this.expected + 1) >>> 0;
  }
}

// Serve the inherited pipes with blocking reads: the fastest path Node has.
function servePipes(readFd, writeFd, fault) {
  const frames = new Frames(fault);
  const buf = Buffer.alloc(256 * 1024);
  while (!frames.done) {
    const n = fs.readSync(readFd, buf, 0, buf.length, null);
    if (n === 0) throw new Error('data channel closed before the END frame');
    for (const r of frames.feed(buf.subarray(0, n))) {
      for (let off = 0; off < r.length;) off += fs.writeSync(writeFd, r, off);
    }
  }
  return frames;
}

function serveSocket(options, fault, onReady, onDone) {
  const frames = new Frames(fault);
  const sock = net.connect(options, () => {
    sock.setNoDelay(true);
    onReady();
  });
  sock.on('data', (chunk) => {
    for (const r of frames.feed(chunk)) sock.write(r);
    if (frames.done) sock.end(() => onDone(null, frames));
  });
  sock.on('error', (e) => onDone(e, frames));
  sock.on('close', () => { if (!frames.done) onDone(new Error('data channel closed before the END frame'), frames); });
}

function answer(obj) {
  fs.writeSync(1, JSON.stringify(obj) + '\n');
}

function transfer(cmd, fault, next) {
  const done = (err, frames) => {
    answer(err ? { ok: false, error: `data channel: ${err.message}` }
      : { ok: true, event: 'done', frames: frames.frames, items: frames.items });
    next();
  };
  if (cmd.transport === 'pipe') {
    // fds 3 and 4 stay open for the next pipe transfer.
    answer({ ok: true, event: 'ready' });
    let frames;
    try { frames = servePipes(cmd.read_fd, cmd.write_fd, fault); } catch (e) { return done(e); }
    return done(null, frames);
  }
  let once = false;
  const finish = (err, frames) => { if (!once) { once = true; done(err, frames); } };
  if (cmd.transport === 'unix') {
    return serveSocket({ path: cmd.path }, fault, () => answer({ ok: true, event: 'ready' }), finish);
  }
  if (cmd.transport === 'tcp') {
    return serveSocket({ host: cmd.host, port: cmd.port }, fault, () => answer({ ok: true, event: 'ready' }), finish);
  }
  answer({ ok: false, error: `unsupported transport ${JSON.stringify(cmd.transport)}: this worker speaks pipe, unix, tcp` });
  next();
}

function main() {
  const fault = parseFault(process.env.TOLL_WORKER_FAULT);
  const lines = readline.createInterface({ input: process.stdin });
  const queue = [];
  let busy = false;
  const pump = () => {
    while (!busy && queue.length > 0) {
      const line = queue.shift();
      if (!line.trim()) continue;
      let cmd;
      try { cmd = JSON.parse(line); } catch (e) { answer({ ok: false, error: `not JSON: ${e.message}` }); continue; }
      if (cmd.op === 'hello') {
        answer({ ok: true, runtime: 'node', version: process.versions.node, wire: 1, pid: process.pid,
          ops: ['transfer', 'spawn', 'ring', 'ffi'], transports: ['pipe', 'unix', 'tcp'], units: units.UNITS,
          bindings: ffi.bindings() });
      } else if (cmd.op === 'ffi') {
        answer(ffi.run(cmd));
      } else if (cmd.op === 'transfer') {
        busy = true;
        transfer(cmd, fault, () => { busy = false; setImmediate(pump); });
      } else if (cmd.op === 'spawn' || cmd.op === 'ring') {
        if (fault.kind === 'exit' && Number.isSafeInteger(cmd.n) && cmd.n >= fault.k) process.exit(3);
        busy = true;
        const work = cmd.op === 'spawn' ? units.spawn(cmd.unit, cmd.n) : units.ring(cmd.unit, cmd.n, cmd.m);
        work.then(answer, (e) => answer({ ok: false, error: `${cmd.op}: ${e.message}` }))
          .finally(() => { busy = false; setImmediate(pump); });
      } else if (cmd.op === 'exit') {
        process.exit(0);
      } else {
        answer({ ok: false, error: `unknown op ${JSON.stringify(cmd.op)}` });
      }
    }
  };
  lines.on('line', (line) => { queue.push(line); pump(); });
  // End of input: exit once every queued command has been answered.
  lines.on('close', () => { const wait = () => (busy || queue.length > 0 ? setTimeout(wait, 10) : process.exit(0)); wait(); });
}

module.exports = { Frames, reply, parseFault };
if (require.main === module) main();
