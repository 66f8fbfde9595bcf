// calendar.js: a month of days as a grid, Monday first (the daily page's
// archive, the player page's streak), and the dailies a player solved in a
// month (GET /api/players/{id}/days), read once a month per page. A day's
// marks are never colour alone: each marked day carries a glyph, says what
// it is in its label, and says more in the line under the grid (the
// calendar's detail) while pointed at or focused.

import { fmt } from './game.js';
import { el } from './ui.js';
import * as api from './api.js';

// monthTitle is "November 2026".
export const monthTitle = (month) => new Date(`${month}-01T00:00:00Z`)
  .toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

// shiftMonth is the month n months after month (YYYY-MM).
export function shiftMonth(month, n) {
  const d = new Date(`${month}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString().slice(0, 7);
}

// grid is a month's cells: the days of the week, blanks up to the first,
// and cell(date, day) for each date (day: its number as text).
export function grid(month, cell) {
  const first = `${month}-01`;
  const cells = ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'].map((d) => {
    const li = el('li', 'dow', d);
    li.setAttribute('aria-hidden', 'true');
    return li;
  });
  const blanks = (new Date(`${first}T00:00:00Z`).getUTCDay() + 6) % 7;
  for (let i = 0; i < blanks; i++) cells.push(el('li', 'blank'));
  for (let date = first; date.slice(0, 7) === month; date = api.addDays(date, 1)) {
    const li = el('li');
    li.append(cell(date, String(Number(date.slice(8)))));
    cells.push(li);
  }
  return cells;
}

// solvedText says what a player solved on a day, level by level:
// "Easy 4:12 · Hard 12:03 (from the archive)".
export function solvedText(solves) {
  return solves.map((s) => `${api.title(s.level)} ${fmt(s.time_ms)}${s.on_day ? '' : ' (from the archive)'}`).join(' · ');
}

// wired are the calendars whose detail line is wired already (a calendar
// is drawn again on each month, its list kept).
const wired = new WeakSet();

// detail shows the day's line under a calendar (the element with id
// detailId) while a day is pointed at or focused, and the line's resting
// text (rest) otherwise.
export function detail(list, detailId, rest) {
  const line = document.getElementById(detailId);
  if (!line) return;
  line.dataset.rest = rest;
  line.textContent = rest;
  if (wired.has(list)) return;
  wired.add(list);
  const show = (e) => {
    const day = e.target.closest ? e.target.closest('[data-detail]') : null;
    line.textContent = day ? day.dataset.detail : line.dataset.rest;
  };
  const reset = () => { line.textContent = line.dataset.rest; };
  list.addEventListener('pointerover', show);
  list.addEventListener('focusin', show);
  list.addEventListener('pointerleave', reset);
  list.addEventListener('focusout', reset);
}

// Solved reads a player's solved dailies a month at a time (a month's
// answer is kept until clear()); a month that cannot be read is empty.
export class Solved {
  constructor(id) {
    this.id = id;
    this.months = new Map();
  }

  clear() { this.months.clear(); }

  // month answers the month's solves by date: date → [{level, time_ms,
  // on_day}], easiest level first.
  async month(month) {
    if (!this.id) return new Map();
    if (!this.months.has(month)) {
      this.months.set(month, api.get(`/api/players/${encodeURIComponent(this.id)}/days?month=${month}`).then((r) => {
        const by = new Map();
        for (const d of r.days || []) {
          if (!by.has(d.date)) by.set(d.date, []);
          by.get(d.date).push(d);
        }
        for (const l of by.values()) l.sort((a, b) => api.LEVELS.indexOf(a.level) - api.LEVELS.indexOf(b.level));
        return by;
      }).catch(() => {
        this.months.delete(month);
        return new Map();
      }));
    }
    return this.months.get(month);
  }
}
