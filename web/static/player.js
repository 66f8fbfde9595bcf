// player.js: the player page, /p/ID, from GET /api/players/{id} and the
// month's dailies of GET /api/players/{id}/days: their games and wins by
// mode, the daily streak with a calendar of the days solved, best and
// average times by level, and their latest games, each linked to its
// replay. Every string from the server is set as text.

import { fmt, ordinal } from './game.js';
import { el } from './ui.js';
import * as api from './api.js';
import { dailyPath } from './daily.js';
import { Solved, detail, grid, monthTitle, shiftMonth, solvedText } from './calendar.js';

const $ = (id) => document.getElementById(id);

// MODES are the modes the page counts, in its order, with the line under
// each count (a race's says its wins).
const MODES = [
  { mode: 'race', title: 'Races' },
  { mode: 'coop', title: 'Co-op', sub: 'solved together' },
  { mode: 'daily', title: 'Dailies', sub: 'solved' },
];

// page fills the player page.
export async function page(id) {
  let p;
  try {
    p = await api.get(`/api/players/${encodeURIComponent(id)}`);
  } catch (e) {
    const none = e.code === 'player_not_found' || e.status === 404;
    $('player-name').textContent = none ? 'No such player' : 'Not available just now';
    $('player-sub').textContent = none ? 'This player does not exist.' : 'The server could not be read; try again in a moment.';
    for (const s of document.querySelectorAll('.player-page .card')) s.hidden = true;
    return;
  }
  if (!$('player-name')) return; // the page changed meanwhile
  document.title = `${p.name} · Sudoku Arena`;
  $('player-name').textContent = p.name;
  const mine = p.id === api.myId();
  $('player-guest').hidden = !p.guest;
  $('player-sub').textContent = mine ? 'Your record' : p.guest ? 'Player record · playing as a guest' : 'Player record';
  // A guest's own record: an account keeps it on every device.
  $('player-keep').hidden = !(mine && p.guest);
  const stats = p.stats || {};
  games(stats.modes || {});
  times(stats.levels || {});
  const { current = 0, longest = 0 } = p.streak || {};
  $('streak-current').textContent = String(current);
  $('streak-current-unit').textContent = current === 1 ? 'day' : 'days';
  $('streak-longest').textContent = String(longest);
  $('streak-longest-unit').textContent = longest === 1 ? 'day' : 'days';
  new StreakCalendar(p.id).draw();
  history(p.id, p.results || [], p.next);
  import('./tournament.js').then((m) => m.places(p.id));
  import('./playnow.js').then((m) => m.ratingCard(p.id)).catch(() => {});
}

// games fills the tiles of games by mode: how many, and a race's wins.
function games(modes) {
  let total = 0;
  const tiles = MODES.map(({ mode, title, sub }) => {
    const m = modes[mode] || {};
    const n = m.finished || 0;
    total += n;
    const li = el('li');
    li.dataset.mode = mode;
    li.append(el('span', 'lbl', title), el('span', 'big-num', api.count(n)));
    // The rate counts races against someone (contested): a race alone is neither won nor lost.
    const won = m.won || 0, of = m.contested || 0;
    li.append(el('span', 'muted sub', sub || `${api.count(won)} won${of ? ` · ${Math.round((100 * won) / of)}%` : ''}`));
    return li;
  });
  const all = el('li', 'all');
  all.dataset.mode = 'all';
  all.append(el('span', 'lbl', 'All games'), el('span', 'big-num', api.count(total)), el('span', 'muted sub', 'finished'));
  $('modes').replaceChildren(all, ...tiles);
}

// times fills the table of times by level.
function times(levels) {
  const rows = api.LEVELS.map((level) => {
    const l = levels[level];
    const tr = el('tr');
    tr.dataset.level = level;
    const th = el('th', 'lvl', api.title(level));
    th.scope = 'row';
    tr.append(th,
      el('td', 'num best', l ? fmt(l.best_ms) : '–'),
      el('td', 'num avg', l ? fmt(l.average_ms) : '–'),
      el('td', 'num n', l ? api.count(l.finished) : '0'));
    return tr;
  });
  $('times').replaceChildren(...rows);
}

// history fills the latest games, and with next (the cursor of older
// ones) offers them a page at a time.
function history(id, results, next) {
  $('history').replaceChildren(...results.map(gameRow));
  $('history-empty').hidden = results.length > 0;
  const more = $('history-more');
  let cursor = next;
  more.hidden = !cursor;
  more.onclick = async () => {
    more.disabled = true;
    $('history-message').textContent = '';
    try {
      const page = await api.get(`/api/players/${encodeURIComponent(id)}/games?before=${encodeURIComponent(cursor)}`);
      $('history').append(...(page.results || []).map(gameRow));
      cursor = page.next;
      more.hidden = !cursor;
    } catch {
      $('history-message').textContent = 'The older games could not be read; try again in a moment.';
    } finally {
      more.disabled = false;
    }
  };
}

// gameRow is one game: when, what (a link to its replay), the time and
// the place.
function gameRow(r) {
  const tr = el('tr');
  const when = el('td', 'day');
  if (r.date) {
    const a = el('a', null, api.shortDate(r.date));
    a.href = dailyPath(r.date, r.level);
    a.title = 'The daily of that day';
    when.append(a);
  } else when.textContent = api.shortDate(r.finished_at);
  const mode = r.mode === 'coop' ? 'Co-op' : r.mode === 'race' ? (r.date ? 'Daily race' : 'Race') : 'Daily';
  // A daily's rank is its place on the day's board; a room's, its place
  // in the room.
  const daily = r.mode === 'daily' || r.date;
  // A finish held for review (docs/protocol.md, "Ranked means earned")
  // says so in place of a rank.
  const review = { held: 'under review', removed: 'removed in review' }[r.review];
  const rank = review || (daily && !r.ranked ? 'unranked' : !r.rank ? '–' : daily ? `#${api.count(r.rank)}` : ordinal(r.rank));
  tr.dataset.ranked = String(!review && (!daily || !!r.ranked));
  tr.dataset.mode = r.mode;
  if (r.review) tr.dataset.review = r.review;
  // A result's room is its round's store id: ID, or ID.N for round N.
  const game = el('td', 'game');
  const [rid, round] = (r.room || '').split('.');
  const a = el('a', 'game-link', `${mode} · ${api.title(r.level)}`);
  a.href = `/r/${encodeURIComponent(rid)}/replay${round ? `?round=${round}` : ''}`;
  a.setAttribute('aria-label', `Replay: ${mode} · ${api.title(r.level)}, ${api.shortDate(r.date || r.finished_at)}`);
  game.append(a);
  tr.append(when, game, el('td', 'num time', fmt(r.time_ms)), el('td', 'num place', rank));
  return tr;
}

// StreakCalendar is the player page's month of dailies: a day solved on
// its day (the streak's days) is filled and ticked, one solved only later
// from the archive is ringed; each says which levels in what time in its
// label, and under the calendar while pointed at or focused.
class StreakCalendar {
  constructor(id) {
    this.solved = new Solved(id);
    this.today = api.today();
    this.month = this.today.slice(0, 7);
    $('streak-prev').onclick = () => { this.month = shiftMonth(this.month, -1); this.draw(); };
    $('streak-next').onclick = () => { this.month = shiftMonth(this.month, 1); this.draw(); };
  }

  async draw() {
    const month = this.month;
    $('streak-month').textContent = monthTitle(month);
    $('streak-next').disabled = month >= this.today.slice(0, 7);
    const list = $('streak-cal');
    const solved = await this.solved.month(month);
    if (month !== this.month || !list.isConnected) return;
    let onDay = 0;
    list.replaceChildren(...grid(month, (date, day) => {
      const all = solved.get(date) || [];
      const streak = all.some((d) => d.on_day);
      if (streak) onDay++;
      const cell = el(all.length ? 'a' : 'span', date > this.today ? 'future' : null, day);
      if (all.length) {
        // Only a solved day is a link, and says what was solved (an
        // unsolved day is its number alone).
        cell.href = dailyPath(date, all[0].level);
        cell.classList.add(streak ? 'streak' : 'late');
        cell.setAttribute('aria-label', `${api.longDate(date)}: solved ${solvedText(all)}`);
      }
      if (date === this.today) cell.classList.add('today');
      cell.dataset.detail = `${api.shortDate(date)}: ${all.length ? solvedText(all) : 'not solved'}`;
      return cell;
    }));
    list.dataset.month = month;
    list.setAttribute('aria-label', `Dailies solved in ${monthTitle(month)}`);
    const rest = `${onDay} ${onDay === 1 ? 'day' : 'days'} solved on the day in ${monthTitle(month)}`;
    detail(list, 'streak-detail', rest);
  }
}
