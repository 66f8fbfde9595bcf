// net.js: the WebSocket. One Link joins one room (as the session's player:
// the upgrade carries its cookie) and keeps the player in it: it resumes
// with last_seq after a drop (backoff with jitter), honours the close
// codes and hands on every event in order. A quiet socket is pinged; one
// that does not answer is replaced (a dead network sends no close frame).

// Close codes (docs/protocol.md, "Close codes").
const NORMAL = 1000, GOING_AWAY = 1001, TOO_BIG = 1009;
const TOO_SLOW = 4001, REPLACED = 4002, ROOM_ENDED = 4003, RATE_LIMITED = 4004, JOIN_TIMEOUT = 4006;
const MOVED = 4009;

// Join errors after which trying again cannot help.
const FATAL_JOIN = new Set(['room_not_found', 'room_full', 'game_started', 'not_invited', 'bad_name']);

// The heartbeat (ms): a ping after QUIET without a frame from the server
// (a hidden tab: QUIET_HIDDEN), and the socket is dead when nothing comes
// within WAIT of it (or of a move); a new one must join within OPEN_WAIT.
const QUIET = 2000, QUIET_HIDDEN = 25000, WAIT = 2000, WAIT_HIDDEN = 10000, OPEN_WAIT = 10000;

export class Link {
  // opts: {room, name, as, onEvent(ev), onState(state, detail)}; name is
  // left out for a player whose session names them (an account).
  constructor(opts) {
    this.o = opts;
    this.ws = null;
    this.lastSeq = 0;       // the last room event applied (0: none yet)
    this.joined = false;    // a welcome came on this socket
    this.pendingReplay = 0; // replay events still to come after a resumed welcome
    this.welcomeSeq = 0;
    this.fails = 0;         // consecutive connections that ended without a welcome
    this.timer = 0;
    this.stopped = false;
    this.noResume = false;  // next join asks for a snapshot (4001 during a replay)
    this.ids = 0;
    this.sent = new Map();  // message id -> message, to explain errors
    this.me = '';           // the player's id, from the welcome
    this.ready = false;     // joined, and the replay is through
    this.outbox = new Map(); // id -> {msg, meta, sent, old}: moves not yet answered
    this.pending = new Map(); // cell -> digit of its latest move not yet answered
    this.heard = 0;         // performance.now() of the last frame
    this.asked = 0;         // when the unanswered ping (or move) went; 0: none
    this.beat = 0; this.beatAt = 0; this.openTimer = 0;
  }

  start() { this.stopped = false; this.connect(); }

  // stop ends the link for good (leave, room gone, replaced).
  stop(state, detail) {
    this.stopped = true;
    this.joined = false;
    clearTimeout(this.timer);
    this.quiet();
    if (this.ws) { this.ws.onclose = null; this.ws.close(); this.ws = null; }
    this.o.onState(state || 'closed', detail);
  }

  connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.o.onState(this.fails || this.me ? 'reconnecting' : 'connecting');
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    // ?room= is the balancer's hint (docs/protocol.md, GET /ws): it sends
    // a room's sockets to the node that runs it. Every other try after one
    // that failed goes without it, so that a node that stalls (it takes
    // connections and never answers) cannot hold the player: the balancer
    // then picks any node, which relays.
    const hint = this.fails % 2 ? '' : `?room=${encodeURIComponent(this.o.room)}`;
    try { ws = new WebSocket(`${proto}//${location.host}/ws${hint}`); } catch { this.retry(); return; }
    this.ws = ws;
    this.joined = false;
    ws.onopen = () => this.join();
    ws.onmessage = (m) => this.receive(m.data);
    ws.onclose = (e) => this.closed(e.code, e.reason || '');
    this.openTimer = setTimeout(() => this.joined || this.dead(), OPEN_WAIT);
  }

  // dead gives up a socket that does not answer, without waiting for its
  // close (which a dead network never brings), and reconnects.
  dead() {
    const ws = this.ws;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = null;
    ws.close();
    this.closed(0, '');
  }

  quiet() {
    clearTimeout(this.beat);
    clearTimeout(this.openTimer);
    this.ready = false;
    this.asked = 0;
  }

  // tick pings a quiet socket and finds a dead one; it runs when something
  // is due (see QUIET and WAIT). A tick that comes late (the tab was
  // frozen, the computer slept) pings again before judging.
  tick() {
    clearTimeout(this.beat);
    if (!this.joined) return;
    const now = performance.now(), hidden = document.hidden;
    if (this.asked && this.heard < this.asked) {
      if (now - this.asked >= (hidden ? WAIT_HIDDEN : WAIT)) {
        if (now - this.beatAt < 1000) return this.dead();
        this.probe();
      }
    } else {
      this.asked = 0;
      if (now - this.heard >= (hidden ? QUIET_HIDDEN : QUIET)) this.probe();
    }
    this.beatAt = this.asked ? this.asked + (hidden ? WAIT_HIDDEN : WAIT) : this.heard + (hidden ? QUIET_HIDDEN : QUIET);
    this.beat = setTimeout(() => this.tick(), Math.max(50, this.beatAt - now));
  }

  probe() {
    this.raw({ type: 'ping' });
    this.asked = performance.now();
  }

  join() {
    const o = this.o;
    const msg = { type: 'join', room: o.room };
    if (o.as === 'spectator') msg.as = 'spectator';
    if (o.name) msg.name = o.name;
    if (o.as !== 'spectator' && this.lastSeq > 0 && !this.noResume) msg.last_seq = this.lastSeq;
    // The first welcome of the page brings what happened before it (the
    // feed is empty); later ones resume, or the feed has it already.
    if (!this.me) msg.history = true;
    this.noResume = false;
    this.raw(msg);
  }

  receive(data) {
    this.heard = performance.now();
    let ev;
    try { ev = JSON.parse(data); } catch { return; }
    if (!ev || typeof ev !== 'object') return;
    if (!this.joined) {
      if (ev.type === 'welcome') return this.welcome(ev);
      if (ev.type === 'error') { ev.refused = true; return this.joinRefused(ev); }
      return;
    }
    if (ev.type === 'pong') {
      if (this.asked) ev.rtt = this.heard - this.asked;
      this.o.onEvent(ev);
      return;
    }
    const seq = ev.seq || 0;
    let caught = false;
    if (this.pendingReplay > 0 && seq > 0 && seq <= this.welcomeSeq) {
      this.pendingReplay--;
      if (seq > this.lastSeq) this.lastSeq = seq;
      if (this.pendingReplay === 0) { this.lastSeq = Math.max(this.lastSeq, this.welcomeSeq); caught = true; }
    } else if (seq > this.lastSeq) {
      this.lastSeq = seq;
    }
    if (ev.type === 'error' && ev.id != null) {
      ev.sent = this.sent.get(ev.id);
    }
    // A move the server was too busy storing games to take, or could not
    // be sure to store just now, stays pending and goes again a moment
    // later (docs/protocol.md, overloaded and retry): it was not made, and
    // it is not the player's mistake. After retry the page shows it is
    // reconnecting until a move of its own is taken again.
    if (ev.type === 'error' && (ev.code === 'overloaded' || ev.code === 'retry') && ev.id != null && this.outbox.has(ev.id)) {
      this.outbox.get(ev.id).sent = false;
      if (ev.code === 'retry' && !this.held) { this.held = true; this.o.onState('reconnecting'); }
      this.retryBusy();
      return;
    }
    if (this.held && ev.type === 'move' && ev.player === this.me) { this.held = false; this.o.onState('open'); }
    // A move's answer: its move event, or the error refusing it.
    if (ev.id != null && this.outbox.has(ev.id) && (ev.type === 'error' || (ev.type === 'move' && ev.player === this.me))) {
      this.outbox.delete(ev.id);
      this.pend();
    }
    this.o.onEvent(ev);
    if (caught) this.flush(false);
  }

  welcome(ev) {
    this.joined = true;
    this.held = false;
    this.fails = 0;
    this.me = (ev.you && ev.you.id) || '';
    if (ev.resumed) {
      this.pendingReplay = ev.replay || 0;
      this.welcomeSeq = ev.seq || 0;
      if (!this.pendingReplay) this.lastSeq = Math.max(this.lastSeq, this.welcomeSeq);
    } else {
      this.pendingReplay = 0;
      this.lastSeq = ev.seq || 0;
    }
    clearTimeout(this.openTimer);
    this.tick();
    this.o.onState('open');
    this.o.onEvent(ev);
    if (!this.pendingReplay) this.flush(!ev.resumed);
  }

  // place sends a move and keeps it until it is answered. One typed while
  // the link is down waits; one sent on a socket that died unanswered goes
  // again once the link is back, unless the resume's replay answered it.
  // base is the cell's digit as the server last said.
  place(msg, meta, base) {
    msg.id = ++this.ids;
    this.remember(msg);
    const mine = [...this.outbox.values()].filter((e) => e.msg.cell === msg.cell);
    for (const e of mine) if (e.sent) e.old = true; else this.outbox.delete(e.msg.id);
    // Back to what the server has, with nothing of it sent: nothing to send.
    if (msg.digit !== base || mine.some((e) => e.sent)) {
      const e = { msg, meta, sent: false, old: false };
      this.outbox.set(msg.id, e);
      if (this.ready) this.post(e);
    }
    this.pend();
  }

  post(e) {
    this.raw(e.msg);
    e.sent = true;
    // A move is answered as a ping is.
    if (!this.asked) { this.asked = performance.now(); this.tick(); }
  }

  // retryBusy sends the moves an overloaded server did not take again
  // after 1.5 to 2.5 s (its Retry-After is 2 s), once for them all.
  retryBusy() {
    if (this.busyTimer) return;
    this.busyTimer = setTimeout(() => {
      this.busyTimer = 0;
      if (!this.ready || !this.ws) return;
      for (const e of this.outbox.values()) if (!e.sent && !e.old) this.post(e);
    }, 1500 + Math.random() * 1000);
  }

  pend() {
    this.pending.clear();
    for (const e of this.outbox.values()) if (!e.old) this.pending.set(e.msg.cell, e.msg.digit);
  }

  // flush sends the moves still unanswered once the link has caught up
  // (fresh: with a snapshot, which answers none). o.settle says of each
  // 'send', 'done' (the board has it) or 'drop' (the game has moved on);
  // o.onFlush gets the dropped.
  flush(fresh) {
    this.ready = true;
    const dropped = [];
    for (const e of [...this.outbox.values()]) {
      const say = e.old ? 'done' : this.o.settle ? this.o.settle(e.msg, e.meta, fresh) : 'send';
      if (say === 'send') this.post(e);
      else {
        this.outbox.delete(e.msg.id);
        if (say === 'drop') dropped.push(e.msg);
      }
    }
    this.pend();
    if (this.o.onFlush) this.o.onFlush(dropped);
  }

  joinRefused(ev) {
    if (FATAL_JOIN.has(ev.code)) {
      this.o.onEvent(ev);
      this.stop('closed', ev.code);
      return;
    }
    this.o.onEvent(ev);
    if (this.ws) this.ws.close();
  }

  closed(code, reason) {
    this.quiet();
    this.ws = null;
    if (this.stopped) return;
    const wasJoined = this.joined;
    this.joined = false;
    if (!wasJoined) this.fails++;
    switch (code) {
      case NORMAL:
        this.stop('closed');
        return;
      case REPLACED:
        this.stop('replaced');
        return;
      case ROOM_ENDED:
        this.stop('closed', 'room_ended');
        return;
      case GOING_AWAY: {
        const m = /(\d+)\s*s\b/.exec(reason);
        const s = m ? Number(m[1]) : 5;
        this.later(s * 1000 + Math.random() * 1500);
        return;
      }
      case TOO_SLOW:
        if (this.pendingReplay > 0) this.noResume = true;
        this.later(Math.random() * 300);
        return;
      case RATE_LIMITED:
        this.later(3000 + Math.random() * 2000);
        return;
      case TOO_BIG:
      case JOIN_TIMEOUT:
      case MOVED: // another node has the room now, or ours stalled: resume at once
        this.later(Math.random() * 300);
        return;
      default:
        this.retry();
    }
  }

  // retry reconnects with exponential backoff and full jitter: the first
  // drop is resumed almost at once, repeated failures back off to 15 s.
  retry() {
    const n = Math.min(this.fails, 6);
    const cap = n === 0 ? 300 : Math.min(15000, 500 * 2 ** n);
    this.later(Math.random() * cap + (n ? 250 : 0));
  }

  later(ms) {
    this.o.onState('reconnecting', Math.ceil(ms / 1000));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), ms);
  }

  // now reconnects at once when a retry is waiting (the page became visible,
  // the network came or went), or checks the socket with a ping.
  now() {
    if (!this.stopped && !this.ws && this.timer) this.connect();
    else if (this.joined) { this.probe(); this.tick(); }
  }

  // send sends a game message with an id; false when the socket is not ready.
  send(msg) {
    if (!this.ws || !this.joined || this.ws.readyState !== WebSocket.OPEN) return false;
    if (msg.type !== 'ping' && msg.type !== 'cursor') {
      msg.id = ++this.ids;
      this.remember(msg);
    }
    this.raw(msg);
    return true;
  }

  remember(msg) {
    this.sent.set(msg.id, msg);
    if (this.sent.size > 64) this.sent.delete(this.sent.keys().next().value);
  }

  raw(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }
}
