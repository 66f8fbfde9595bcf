// daily.js: the puzzle of the day around the board: home's dailies,
// and the daily page's leaderboard, streak and archive calendar. The board itself is the room page's (app.js): a daily is played in
// a room of mode "daily". Every string from the server is set as text.

import { fmt } from './game.js';
import { el, nameEl } from './ui.js';
import * as api from './api.js';
import { Solved, detail, grid, monthTitle, shiftMonth, solvedText } from './calendar.js';

const $ = (id) => document.getElementById(id);

// ARCHIVE_DAYS is how far back the server keeps dailies (docs/protocol.md).
const ARCHIVE_DAYS = 366;

// dailyPath is the address of a daily page.
export const dailyPath = (date, level) => `/daily/${date}/${level}`;

// statusText says where the player stands on one daily: "Not started",
// "Solved in 4:12 · rank 37 of 1,204", "Solved in 4:12 · unranked",
// "Solved in 0:41 · under review" (a finish held for review).
export function statusText(you, finished) {
  if (!you || you.status === 'not_started' || !you.status) return 'Not started';
  if (you.status === 'playing') return 'In progress';
  const t = `Solved in ${fmt(you.time_ms)}`;
  const review = { held: 'under review', removed: 'removed in review' }[you.review];
  if (review) return `${t} · ${review}`;
  if (you.ranked === false) return `${t} · unranked`;
  return you.rank ? `${t} · rank ${api.count(you.rank)} of ${api.count(Math.max(finished || 0, you.rank))}` : t;
}

// homeDailies fills home's section#daily: a row per level with the
// player's status and a link to its daily page.
export async function homeDailies() {
  const ul = $('daily-levels');
  const rows = new Map();
  for (const level of api.LEVELS) {
    const li = el('li');
    li.dataset.level = level;
    const what = el('div', 'what');
    what.append(el('span', 'lvl', api.title(level)), el('span', 'count muted', ''));
    const a = el('a', 'play button', 'Play');
    a.href = dailyPath(api.today(), level);
    li.append(what, el('span', 'status', '…'), a);
    rows.set(level, li);
  }
  ul.replaceChildren(...rows.values());
  let d;
  try {
    d = await api.get('/api/daily');
  } catch {
    for (const li of rows.values()) li.querySelector('.status').textContent = 'Not available just now';
    return;
  }
  if (!ul.isConnected) return;
  $('daily-date').textContent = api.longDate(d.date);
  for (const l of d.levels || []) {
    const li = rows.get(l.level);
    if (!li) continue;
    const you = l.you;
    const status = you ? you.status : 'not_started';
    li.dataset.status = status;
    li.querySelector('.count').textContent = `${l.se ? `SE ${l.se.toFixed(1)} · ` : ''}${api.count(l.finished)} solved`;
    li.querySelector('.status').textContent = statusText(you, l.finished);
    const a = li.querySelector('a');
    a.href = dailyPath(d.date, l.level);
    a.textContent = status === 'solved' ? 'Results' : status === 'playing' ? 'Resume' : 'Play';
    a.classList.toggle('primary', status !== 'solved');
    a.setAttribute('aria-label', `${a.textContent}: ${api.title(l.level)}`);
  }
}

// lbRow is one leaderboard row: rank, the player (a link to their page),
// the time with penalties, and what the penalties were.
export function lbRow(r, me) {
  const tr = el('tr');
  tr.dataset.rank = r.rank;
  tr.dataset.player = r.player.id;
  if (r.player.id === me) tr.classList.add('me');
  const name = el('td', 'name');
  const a = nameEl(r.player, 'a');
  a.href = `/p/${encodeURIComponent(r.player.id)}`;
  name.append(a);
  const extra = [];
  if (r.mistakes) extra.push(r.mistakes === 1 ? '1 mistake' : `${r.mistakes} mistakes`);
  if (r.hints) extra.push(r.hints === 1 ? '1 hint' : `${r.hints} hints`);
  const time = el('td', 'num time', fmt(r.time_ms));
  if (extra.length) time.title = `${fmt(r.elapsed_ms)} played, ${extra.join(', ')}`;
  tr.append(el('td', 'rank', api.count(r.rank)), name, time, el('td', 'num muted pen', extra.length ? `+${fmt(r.time_ms - r.elapsed_ms)}` : ''));
  return tr;
}

// Panels are the daily page's side panels for one date and level.
export class Panels {
  constructor(date, level, today) {
    this.date = date; this.level = level; this.today = today;
    this.month = date.slice(0, 7);
    this.solved = null; // the player's solved dailies, from their record on
    this.mine = null; // the player's leaderboard row, once they have one
    $('cal-prev').addEventListener('click', () => this.shiftMonth(-1));
    $('cal-next').addEventListener('click', () => this.shiftMonth(1));
    this.calendar();
  }

  // refresh reads the leaderboard and the player's record again; it
  // answers the player's row of this day's leaderboard, if ranked.
  async refresh() {
    const me = api.myId();
    const [lb, rec] = await Promise.all([
      api.get(`/api/daily/${this.date}/${this.level}/leaderboard?limit=10&around=me`).catch(() => null),
      me ? api.get(`/api/players/${encodeURIComponent(me)}`).catch(() => null) : null,
    ]);
    if (!$('lb-rows')) return null; // the page changed meanwhile
    this.board(lb, me);
    this.record(rec);
    return this.mine;
  }

  board(lb, me) {
    const rows = [];
    const top = lb ? lb.top || [] : [];
    const around = lb ? lb.around || [] : [];
    for (const r of top) rows.push(lbRow(r, me));
    const last = top.length ? top[top.length - 1].rank : 0;
    const after = around.filter((r) => r.rank > last);
    if (after.length) {
      if (after[0].rank > last + 1) {
        const gap = el('tr', 'gap');
        const td = el('td', null, '⋯');
        td.colSpan = 4;
        gap.append(td);
        rows.push(gap);
      }
      for (const r of after) rows.push(lbRow(r, me));
    }
    $('lb-rows').replaceChildren(...rows);
    $('lb-empty').hidden = rows.length > 0 || !lb;
    $('lb-total').textContent = lb ? `· ${api.count(lb.total)} finished` : '· not available';
    this.mine = [...top, ...around].find((r) => r.player.id === me) || null;
    this.total = lb ? lb.total : 0;
    const you = $('lb-you');
    you.hidden = !this.mine;
    if (this.mine) you.textContent = `You: rank ${api.count(this.mine.rank)} of ${api.count(this.total)} · ${fmt(this.mine.time_ms)}`;
  }

  record(rec) {
    const s = $('streak');
    s.replaceChildren();
    const { current = 0, longest = 0 } = (rec && rec.streak) || {};
    if (!longest) s.textContent = 'Finish a daily to start a streak.';
    else s.append(el('span', 'big-num', String(current)), el('span', null, current === 1 ? ' day' : ' days'),
      el('span', 'muted', ` · longest ${longest}`));
    // Read afresh: a finish since the calendar was read shows on it now.
    this.solved = new Solved(api.myId());
    this.calendar();
  }

  shiftMonth(n) {
    this.month = shiftMonth(this.month, n);
    this.calendar();
  }

  // calendar draws the month: each past day back to the archive's first
  // (ARCHIVE_DAYS before today, as the server keeps) links to its daily
  // page (an archive day, unranked), today's too; the days this player
  // solved this level are ticked, those solved only at another level
  // dotted, and each says so in its label and, pointed at or focused,
  // its times under the calendar.
  async calendar() {
    const month = this.month;
    const first = `${month}-01`;
    $('cal-month').textContent = monthTitle(month);
    $('cal-next').disabled = shiftMonth(month, 1) > this.today.slice(0, 7);
    const oldest = api.addDays(this.today, -ARCHIVE_DAYS);
    $('cal-prev').disabled = first <= oldest;
    const draw = (solved) => grid(month, (date, day) => {
      if (date > this.today || date < oldest) return el('span', 'future', day);
      const a = el('a', null, day);
      a.href = dailyPath(date, this.level);
      const all = solved.get(date) || [];
      const mine = all.find((d) => d.level === this.level);
      const label = [api.longDate(date)];
      if (date < this.today) label.push('unranked');
      const others = all.filter((d) => d !== mine);
      if (mine) {
        a.classList.add('done');
        label.push(`solved in ${fmt(mine.time_ms)}`);
      } else if (others.length) a.classList.add('other');
      if (others.length) label.push(`${mine ? 'also ' : ''}solved ${solvedText(others)}`);
      a.setAttribute('aria-label', label.join(' · '));
      a.dataset.detail = `${api.shortDate(date)}: ${all.length ? `solved ${solvedText(all)}` : 'not solved'}`;
      if (date === this.today) a.classList.add('today');
      if (date === this.date) a.setAttribute('aria-current', 'date');
      return a;
    });
    const list = $('calendar');
    // The month as it is known now, then with this player's solves.
    list.replaceChildren(...draw(new Map()));
    if (!this.solved) return;
    const solved = await this.solved.month(month);
    if (month !== this.month || !list.isConnected) return;
    list.replaceChildren(...draw(solved));
    list.dataset.month = month;
    detail(list, 'cal-detail', '✓ solved at this level · • at another · point at a day for its times');
  }
}
