// lab.js: the solver lab at /lab (docs/protocol.md, "The solver lab"). A
// puzzle is pasted, or generated at a level from a seed; the server solves
// it, grades it, or lists its logical solution, which the page steps
// through forward and back on a board with pencil marks, the step's cells
// highlighted. The address keeps the puzzle (?puzzle=…) or its level and
// seed (?level=hard&seed=42), so a link reproduces what it shows.

import * as api from './api.js';
import { PEERS, refusal } from './game.js';

const $ = (id) => document.getElementById(id);
const ALL = 0x3fe; // candidates 1..9 as bits 1..9

// cleanPuzzle keeps the cells of a pasted puzzle ('0' as '.'), dropping
// the spaces and separators of a 9×9 layout as the server does; '' when
// what is left is not 81 cells, so the server's parser says why.
function cleanPuzzle(text) {
  const s = (text || '').replace(/[\s|+-]/g, '').replace(/0/g, '.');
  return /^[.1-9]{81}$/.test(s) ? s : '';
}

// puzzleRefusal says why the server refused a puzzle, with its own words
// where they say which cell or which givens.
export function puzzleRefusal(e) {
  const message = e.message && e.message.replace(/^the puzzle is not 81 cells of digits and dots: /, 'that is not a puzzle: ');
  return refusal({ ...e, message }, ['bad_puzzle', 'no_solution', 'many_solutions']);
}

// setText sets the element's text where it differs.
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// boardAt is the digits and candidate masks after the first n steps.
function boardAt(givens, steps, n) {
  const v = givens.slice();
  const mask = v.map((d) => (d ? 0 : ALL));
  const place = (c, d) => {
    v[c] = d; mask[c] = 0;
    for (const p of PEERS[c]) mask[p] &= ~(1 << d);
  };
  givens.forEach((d, c) => { if (d) place(c, d); });
  for (const st of steps.slice(0, n)) {
    for (const x of st.place || []) place(x.cell, x.digit);
    for (const x of st.eliminate || []) mask[x.cell] &= ~(1 << x.digit);
  }
  return { v, mask };
}

export function page() {
  const grid = $('lab-board');
  // A grid of nine rows of nine cells, as the game's board: assistive
  // technology reads it by row and column.
  const cells = [];
  const rows = [];
  for (let c = 0; c < 81; c++) {
    if (c % 9 === 0) {
      const row = document.createElement('div');
      row.setAttribute('role', 'row');
      row.className = 'row';
      rows.push(row);
    }
    const el = document.createElement('div');
    el.className = 'cell';
    el.setAttribute('role', 'gridcell');
    el.id = `lab-cell-${c}`;
    el.dataset.cell = c;
    el.dataset.r = Math.floor(c / 9); el.dataset.k = c % 9;
    const d = document.createElement('span');
    d.className = 'digit';
    // The pencil marks' nine places are made when a step first shows
    // marks: a board that only shows a puzzle lays out 81 cells, not 810.
    const marks = document.createElement('span');
    marks.className = 'corner';
    el.append(d, marks);
    cells.push(el);
    rows[rows.length - 1].append(el);
  }
  grid.replaceChildren(...rows);

  const input = $('lab-puzzle');
  const say = (text) => { $('lab-message').textContent = text || ''; };
  // What the board shows: the givens, a solution, or a step.
  let givens = null, cur = '', solution = '', steps = [], pos = 0;

  const render = () => {
    const g = givens || new Array(81).fill(0);
    const showing = steps.length > 0;
    const st = showing && pos > 0 ? steps[pos - 1] : null;
    const { v, mask } = boardAt(g, steps, Math.max(0, pos - 1));
    const hl = new Set(st ? st.highlight : []);
    const places = new Map((st && st.place || []).map((x) => [x.cell, x.digit]));
    const elims = new Map();
    for (const x of (st && st.eliminate) || []) elims.set(x.cell, (elims.get(x.cell) || 0) | (1 << x.digit));
    cells.forEach((el, c) => {
      const given = g[c] !== 0;
      let d = v[c] || places.get(c) || 0;
      if (!d && solution && !showing) d = Number(solution[c]);
      el.classList.toggle('given', given);
      el.classList.toggle('hl', hl.has(c));
      el.classList.toggle('target', elims.has(c) && !(st.cells || []).includes(c));
      el.classList.toggle('placed', places.has(c));
      el.classList.toggle('filled', !given && d > 0);
      // Text is set only where it changes: spans rewritten each step would
      // cost a phone a style and layout pass over the whole board.
      setText(el.firstChild, d ? String(d) : '');
      const m = showing && !d ? mask[c] : 0;
      const out = elims.get(c) || 0;
      const marks = el.lastChild;
      if (!marks.firstChild) {
        if (!m && !out) return;
        for (let i = 1; i <= 9; i++) marks.append(Object.assign(document.createElement('i'), { className: `m${i}` }));
      }
      marks.childNodes.forEach((i, k) => {
        const bit = 1 << (k + 1);
        setText(i, m & bit ? String(k + 1) : '');
        i.classList.toggle('elim', (out & bit) !== 0);
      });
    });
    grid.dataset.step = String(pos);
    $('lab-steps').hidden = !showing;
    if (!showing) return;
    const slider = $('lab-slider');
    slider.max = String(steps.length);
    slider.value = String(pos);
    $('lab-count').textContent = `Step ${pos} of ${steps.length}`;
    $('lab-step-title').textContent = st ? `${pos}. ${st.name}` : 'The puzzle, with its pencil marks';
    $('lab-explain').textContent = st ? st.explanation : `${steps.length} logical steps solve it. Step forward to follow them.`;
    $('lab-back').disabled = $('lab-first').disabled = pos === 0;
    $('lab-next').disabled = $('lab-last').disabled = pos === steps.length;
  };
  const go = (n) => { pos = Math.max(0, Math.min(steps.length, n)); render(); };

  // show puts a puzzle on the board, and into the address and the field.
  const show = (p, query) => {
    cur = p;
    givens = [...p].map((ch) => (ch === '.' ? 0 : Number(ch)));
    solution = ''; steps = []; pos = 0;
    input.value = p;
    $('lab-count').textContent = '';
    $('lab-play').href = `/?puzzle=${p}`;
    history.replaceState(null, '', `/lab?${query || `puzzle=${p}`}`);
    render();
  };

  const facts = (title, rows, techs) => {
    $('lab-result').hidden = false;
    $('lab-result-title').textContent = title;
    $('lab-facts').replaceChildren(...rows.flatMap(([k, v]) => [
      Object.assign(document.createElement('dt'), { textContent: k }),
      Object.assign(document.createElement('dd'), { textContent: v }),
    ]));
    $('lab-techs').replaceChildren(...(techs || []).map((t) => {
      const tr = document.createElement('tr');
      tr.dataset.technique = t.technique;
      tr.append(Object.assign(document.createElement('td'), { className: 'name', textContent: t.name }),
        Object.assign(document.createElement('td'), { className: 'num', textContent: String(t.count) }));
      return tr;
    }));
  };

  // ask sends the field's puzzle to a lab route; busy buttons wait.
  const busy = (on) => { for (const b of document.querySelectorAll('.lab-side button')) b.disabled = on; };
  const ask = async (path) => {
    say('');
    busy(true);
    try {
      const r = await api.post(path, { puzzle: input.value });
      if (r.puzzle !== cur) show(r.puzzle);
      return r;
    } catch (e) {
      say(puzzleRefusal(e));
      return null;
    } finally {
      busy(false);
    }
  };

  $('lab-solve').addEventListener('click', async () => {
    const r = await ask('/api/solve');
    if (!r) return;
    steps = []; pos = 0; solution = r.solution || '';
    const title = ['No solution', 'One solution', 'More than one solution'][r.solutions];
    const ms = r.elapsed_us / 1000;
    facts(title, [
      ['Solutions', r.solutions > 1 ? '2 or more' : String(r.solutions)],
      ['Time', ms < 1 ? `${r.elapsed_us} µs` : `${ms.toFixed(1)} ms`],
      ['Guesses', api.count(r.stats.guesses)],
      ['Propagations', api.count(r.stats.propagations)],
      ['Iterations', api.count(r.stats.iterations)],
    ]);
    $('lab-what').textContent = r.solutions > 1 ? 'One of its solutions' : r.solutions ? 'Solved' : 'No solution';
    render();
  });
  $('lab-grade').addEventListener('click', async () => {
    const r = await ask('/api/grade');
    if (!r) return;
    facts(`${api.title(r.level)} · score ${api.count(r.score)}`, [
      ['Level', api.title(r.level)],
      ['Score', api.count(r.score)],
      ['Hardest', r.hardest_name],
      ['SE rating', r.se != null ? r.se.toFixed(1) : 'Beyond the rater (8.5 or more)'],
      ['Solved by logic', r.solved ? 'Yes' : 'No: the techniques get stuck'],
    ], r.counts);
  });
  $('lab-human').addEventListener('click', async () => {
    const r = await ask('/api/steps');
    if (!r) return;
    solution = '';
    steps = r.steps;
    const counts = new Map();
    for (const s of steps) counts.set(s.technique, { technique: s.technique, name: s.name, count: (counts.get(s.technique) || { count: 0 }).count + 1 });
    facts(`${api.title(r.level)} · ${steps.length} steps`, [
      ['Level', api.title(r.level)],
      ['Steps', `${steps.length}${r.truncated ? ' (the first ones)' : ''}`],
      ['Solved by logic', r.solved ? 'Yes' : 'No: the techniques get stuck'],
    ], [...counts.values()].sort((a, b) => b.count - a.count));
    $('lab-what').textContent = 'Solving like a person';
    go(0);
  });
  $('lab-generate').addEventListener('click', async () => {
    const level = $('lab-level').value;
    const seed = $('lab-seed').value.trim();
    say('');
    busy(true);
    try {
      const r = await api.get(`/api/generate?level=${level}${seed ? `&seed=${encodeURIComponent(seed)}` : ''}`);
      // The field keeps what the player typed: left empty, every Generate
      // is a new random puzzle (its seed shows above the board and in the
      // address), and the next one is random again.
      show(r.puzzle, `level=${r.level}&seed=${r.seed}`);
      $('lab-what').textContent = `${api.title(r.level)} · seed ${r.seed}`;
      $('lab-result').hidden = true;
    } catch (e) {
      say(e.code === 'bad_field' ? 'The seed is a whole number, from 0 up.' : puzzleRefusal(e));
    } finally {
      busy(false);
    }
  });
  // The seed field: empty means random; a seed in it (typed, or from a
  // link) is selected when the field is entered, so typing replaces it,
  // and Enter generates.
  const seedField = $('lab-seed');
  let clicked = false;
  seedField.addEventListener('mousedown', () => { clicked = document.activeElement !== seedField; });
  seedField.addEventListener('focus', () => seedField.select());
  seedField.addEventListener('mouseup', (e) => { if (clicked) e.preventDefault(); clicked = false; });
  seedField.addEventListener('keydown', (e) => { if (e.key === 'Enter') $('lab-generate').click(); });
  input.addEventListener('input', () => {
    const p = cleanPuzzle(input.value);
    if (p) { show(p); $('lab-what').textContent = 'Your puzzle'; $('lab-result').hidden = true; }
  });
  $('lab-first').addEventListener('click', () => go(0));
  $('lab-back').addEventListener('click', () => go(pos - 1));
  $('lab-next').addEventListener('click', () => go(pos + 1));
  $('lab-last').addEventListener('click', () => go(steps.length));
  $('lab-slider').addEventListener('input', (e) => go(Number(e.target.value)));
  document.addEventListener('keydown', (e) => {
    if (!steps.length || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    const to = { ArrowRight: pos + 1, ArrowLeft: pos - 1, Home: 0, End: steps.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });

  document.title = 'Solver lab · Sudoku Arena';
  const q = new URLSearchParams(location.search);
  const p = cleanPuzzle(q.get('puzzle'));
  if (p) {
    show(p);
    $('lab-what').textContent = 'Your puzzle';
  } else if (q.get('puzzle')) {
    input.value = q.get('puzzle');
    say('That link holds no puzzle of 81 cells: press Solve to see why.');
  } else {
    if (api.LEVELS.includes(q.get('level'))) $('lab-level').value = q.get('level');
    if (/^\d+$/.test(q.get('seed') || '')) $('lab-seed').value = q.get('seed');
    $('lab-generate').click();
  }
  render();
}
