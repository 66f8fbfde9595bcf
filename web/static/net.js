// net.js: the WebSocket to the server. One Link joins one room and keeps
// the player in it: it resumes with last_seq after a drop (backoff with
// jitter), honours the close codes of docs/protocol.md, and hands every
// event to the caller in order. The player is the session's: the upgrade
// request carries its cookie, so the join names no token and the welcome
// brings none.

// Close codes (docs/protocol.md, "Close codes").
const NORMAL = 1000, GOING_AWAY = 1001, TOO_BIG = 1009;
const TOO_SLOW = 4001, REPLACED = 4002, ROOM_ENDED = 4003, RATE_LIMITED = 4004, JOIN_TIMEOUT = 4006;
const MOVED = 4009;

// Join errors after which trying again cannot help.
const FATAL_JOIN = new Set(['room_not_found', 'room_full', 'game_started', 'bad_name']);

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
    this.ping = 0;
  }

  start() { this.stopped = false; this.connect(); }

  // stop ends the link for good (leave, room gone, replaced).
  stop(state, detail) {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (this.ws) { this.ws.onclose = null; this.ws.close(); this.ws = null; }
    this.o.onState(state || 'closed', detail);
  }

  connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.o.onState(this.fails ? 'reconnecting' : 'connecting');
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try { ws = new WebSocket(`${proto}//${location.host}/ws`); } catch { this.retry(); return; }
    this.ws = ws;
    this.joined = false;
    ws.onopen = () => this.join();
    ws.onmessage = (m) => this.receive(m.data);
    ws.onclose = (e) => this.closed(e.code, e.reason || '');
  }

  join() {
    const o = this.o;
    const msg = { type: 'join', room: o.room };
    if (o.as === 'spectator') msg.as = 'spectator';
    if (o.name) msg.name = o.name;
    if (o.as !== 'spectator' && this.lastSeq > 0 && !this.noResume) msg.last_seq = this.lastSeq;
    this.noResume = false;
    this.raw(msg);
  }

  receive(data) {
    let ev;
    try { ev = JSON.parse(data); } catch { return; }
    if (!ev || typeof ev !== 'object') return;
    if (!this.joined) {
      if (ev.type === 'welcome') return this.welcome(ev);
      if (ev.type === 'error') { ev.refused = true; return this.joinRefused(ev); }
      return;
    }
    if (ev.type === 'pong') { this.o.onEvent(ev); return; }
    const seq = ev.seq || 0;
    if (this.pendingReplay > 0 && seq > 0 && seq <= this.welcomeSeq) {
      this.pendingReplay--;
      if (seq > this.lastSeq) this.lastSeq = seq;
      if (this.pendingReplay === 0) this.lastSeq = Math.max(this.lastSeq, this.welcomeSeq);
    } else if (seq > this.lastSeq) {
      this.lastSeq = seq;
    }
    if (ev.type === 'error' && ev.id != null) {
      ev.sent = this.sent.get(ev.id);
    }
    this.o.onEvent(ev);
  }

  welcome(ev) {
    this.joined = true;
    this.fails = 0;
    if (ev.resumed) {
      this.pendingReplay = ev.replay || 0;
      this.welcomeSeq = ev.seq || 0;
      if (!this.pendingReplay) this.lastSeq = Math.max(this.lastSeq, this.welcomeSeq);
    } else {
      this.pendingReplay = 0;
      this.lastSeq = ev.seq || 0;
    }
    clearInterval(this.ping);
    this.ping = setInterval(() => this.send({ type: 'ping' }), 20000);
    this.o.onState('open');
    this.o.onEvent(ev);
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
    clearInterval(this.ping);
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
      case MOVED: // another node has the room now: resume there at once
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
  // the network came back).
  now() {
    if (!this.stopped && !this.ws && this.timer) this.connect();
  }

  // send sends a game message with an id; false when the socket is not ready.
  send(msg) {
    if (!this.ws || !this.joined || this.ws.readyState !== WebSocket.OPEN) return false;
    if (msg.type !== 'ping' && msg.type !== 'cursor') {
      msg.id = ++this.ids;
      this.sent.set(msg.id, msg);
      if (this.sent.size > 64) this.sent.delete(this.sent.keys().next().value);
    }
    this.raw(msg);
    return true;
  }

  raw(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }
}
