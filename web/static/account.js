// account.js: the account page, /account, and the one-time sign-in link,
// /signin#CODE, that lands on it. A guest makes an account under a handle
// with a passkey (their player, history and streak become the account's)
// and then sees their recovery codes once; or signs in with a passkey, a
// code from another device or a recovery code. An account sees its handle,
// since when, its passkeys and codes left, and can add a passkey, sign in
// another device, sign out or delete itself. Every refusal is said in words
// beside what was asked, and nothing typed is cleared by one.

import * as api from './api.js';
import * as passkey from './passkey.js';
import { refusal, shown } from './game.js';
import { el } from './ui.js';

const $ = (id) => document.getElementById(id);

// ticker counts the sign-in code's time down while its page is shown.
let ticker = 0;

// page mounts the account page; opts.note is a line to show on top (what
// just happened), opts.loading keeps the views hidden until view().
export function page(mount, opts = {}) {
  clearInterval(ticker);
  mount('account-tpl');
  document.documentElement.dataset.page = 'account';
  $('room-tag').textContent = '';
  document.title = 'Your account · Sudoku Arena';
  wire();
  if (!opts.loading) view(opts.note);
}

// signinLink is /signin#CODE, the one-time link another device made: it
// signs this browser in and shows the account. The code is in the
// fragment, which browsers never send; it leaves the address at once.
export async function signinLink(mount) {
  let code = '';
  try { code = decodeURIComponent(location.hash.slice(1)).trim(); } catch { /* not a code */ }
  history.replaceState(null, '', '/account');
  page(mount, { loading: true });
  $('acct-sub').textContent = 'Signing you in…';
  if (!code) { view(); return; }
  try {
    const r = await api.post('/api/account/signin/code', { code });
    api.setSession(r);
    view(`Signed in as ${handleOf(r)} on this device.`);
  } catch (e) {
    view();
    $('code-box').open = true;
    say('code-message', `${words(e)} Make a new one on your signed-in device.`);
  }
}

const handleOf = (r) => (r && r.account ? r.account.handle : r && r.player ? r.player.name : '');

// view shows the page for the session as it is now: the account's, or the
// guest's (also when this browser has no player yet).
function view(note) {
  const root = document.querySelector('.account-page');
  if (!root) return;
  const s = api.session();
  const acct = s && s.account;
  root.dataset.view = acct ? 'account' : 'guest';
  $('acct-guest').hidden = !!acct;
  $('acct-account').hidden = !acct;
  $('acct-codes').hidden = true;
  const n = $('acct-note');
  n.hidden = !note;
  n.textContent = note || '';
  if (acct) {
    $('acct-title').textContent = acct.handle;
    $('acct-sub').textContent = 'Your account';
    fill(s);
    return;
  }
  $('acct-title').textContent = 'Your account';
  $('acct-sub').textContent = s
    ? `You play as ${shown(s.player)}: your games are kept for this browser only.`
    : 'Play as a guest, or keep your games on every device with an account.';
  const h = $('signup-handle');
  if (!h.value && s) h.value = s.player.name;
}

// resetGuest closes the guest's sign-in forms and clears their codes (used
// up by a sign-in), and the account's forms: after a sign-out or a delete
// the page starts afresh.
function resetGuest() {
  for (const id of ['code-box', 'recovery-box']) $(id).open = false;
  for (const id of ['signin-code', 'rec-code']) $(id).value = '';
  for (const id of ['signin-message', 'code-message', 'rec-message', 'signup-message']) say(id, '');
  // And the account's: its sign-in code and the delete's confirmation.
  clearInterval(ticker);
  $('link-box').hidden = true;
  $('link-make').textContent = 'Make a sign-in code';
  $('delete-box').hidden = true;
  $('delete-open').hidden = false;
  $('delete-handle').value = '';
  $('delete-go').disabled = true;
}

// fill writes the account's facts.
function fill(s) {
  const a = s.account;
  $('acct-handle').textContent = a.handle;
  $('acct-since').textContent = api.shortDate(a.created_at) || '–';
  $('acct-passkeys').textContent = String(a.passkeys ?? '–');
  const left = a.recovery_codes_left ?? 0;
  const codes = $('acct-codes-left');
  codes.textContent = String(left);
  codes.classList.toggle('low', left <= 3);
  codes.title = left <= 3 ? 'Few left: a recovery code signs you in when no passkey can.' : '';
  $('acct-record').href = `/p/${encodeURIComponent(s.player.id)}`;
  $('delete-name').textContent = a.handle;
}

// say writes a line under a form: an error (role alert), or with ok a
// confirmation.
function say(id, text, ok) {
  const p = $(id);
  if (!p) return;
  p.textContent = text || '';
  p.classList.toggle('ok', !!ok);
}

// words says why an account request failed: the browser's passkey prompt,
// or the server's refusal (a refused handle says why in the server's own
// words).
function words(e, creating) {
  return passkey.problem(e, creating) || refusal(e, ['bad_handle'], 'Too many tries from here: wait a minute, then try again.');
}

// busy marks a button at work (its label says what it waits for) and
// answers the function that puts it back.
function busy(btn, label) {
  const was = btn.textContent;
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  if (label) btn.textContent = label;
  return () => {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
    btn.textContent = was;
  };
}

// on wires a button and the inputs whose Enter presses it.
function on(id, fn, ...inputs) {
  const btn = $(id);
  btn.addEventListener('click', () => fn(btn));
  for (const i of inputs) $(i).addEventListener('keydown', (e) => { if (e.key === 'Enter') btn.click(); });
}

function wire() {
  on('signup', signup, 'signup-handle');
  on('signin', signin);
  on('code-go', withCode, 'signin-code');
  on('rec-go', recover, 'rec-handle', 'rec-code');
  on('codes-copy', copyCodes);
  on('codes-done', () => view());
  on('add-passkey', addPasskey);
  on('link-make', makeLink);
  on('link-copy', copyLink);
  on('signout', signout);
  on('delete-open', () => {
    $('delete-box').hidden = false;
    $('delete-open').hidden = true;
    $('delete-handle').focus();
  });
  on('delete-cancel', () => {
    $('delete-box').hidden = true;
    $('delete-open').hidden = false;
    $('delete-handle').value = '';
    $('delete-go').disabled = true;
    say('delete-message', '');
  });
  on('delete-go', remove, 'delete-handle');
  $('delete-handle').addEventListener('input', () => {
    const a = api.account();
    $('delete-go').disabled = !a || $('delete-handle').value.trim() !== a.handle;
  });
}

async function signup(btn) {
  const handle = $('signup-handle').value.trim();
  if (!handle) {
    say('signup-message', 'Pick a handle first: the name everyone sees.');
    $('signup-handle').focus();
    return;
  }
  say('signup-message', '');
  const done = busy(btn, 'Waiting for your passkey…');
  try {
    const begin = await api.post('/api/account/signup/begin', { handle });
    const credential = await passkey.create(begin.options);
    const r = await api.post('/api/account/signup/finish', { ceremony: begin.ceremony, credential });
    api.setSession(r);
    done();
    showCodes(r.recovery_codes || []);
  } catch (e) {
    done();
    say('signup-message', words(e, true));
    if (e.code === 'bad_handle' || e.code === 'handle_taken') $('signup-handle').focus();
    if (e.code === 'already_account') api.refresh().then(() => view()).catch(() => {});
  }
}

// showCodes shows the recovery codes, this once, after a sign-up.
function showCodes(codes) {
  const root = document.querySelector('.account-page');
  root.dataset.view = 'codes';
  $('acct-guest').hidden = true;
  $('acct-account').hidden = true;
  $('acct-note').hidden = true;
  const s = api.session();
  $('acct-title').textContent = `Welcome, ${s && s.account ? s.account.handle : ''}`;
  $('acct-sub').textContent = 'Your games so far are your account’s now.';
  $('codes-list').replaceChildren(...codes.map((c) => el('li', null, c)));
  $('acct-codes').hidden = false;
  $('codes-done').focus();
}

async function copyCodes(btn) {
  const codes = [...document.querySelectorAll('#codes-list li')].map((li) => li.textContent);
  const ok = await copy(codes.join('\n'));
  if (ok) {
    btn.textContent = 'Copied';
    say('codes-message', '');
    setTimeout(() => { btn.textContent = 'Copy the codes'; }, 2000);
  } else {
    // Select them for the player to copy by hand.
    const range = document.createRange();
    range.selectNodeContents($('codes-list'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    say('codes-message', 'This browser would not copy: the codes are selected, copy them yourself.');
  }
}

// copy puts text on the clipboard; false when the browser refuses.
async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const t = el('textarea');
    t.value = text;
    t.setAttribute('readonly', '');
    t.style.position = 'fixed';
    t.style.opacity = '0';
    document.body.append(t);
    t.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { /* refused */ }
    t.remove();
    return ok;
  }
}

async function signin(btn) {
  say('signin-message', '');
  const done = busy(btn, 'Waiting for your passkey…');
  try {
    const begin = await api.post('/api/account/signin/begin', {});
    const credential = await passkey.get(begin.options);
    const r = await api.post('/api/account/signin/finish', { ceremony: begin.ceremony, credential });
    api.setSession(r);
    done();
    view(`Signed in as ${handleOf(r)}.`);
  } catch (e) {
    done();
    say('signin-message', words(e, false));
  }
}

// codeFrom takes a code, or a whole sign-in link pasted in.
const codeFrom = (s) => {
  const t = s.trim();
  const i = t.indexOf('#');
  return (i >= 0 ? t.slice(i + 1) : t).trim().toUpperCase();
};

async function withCode(btn) {
  const code = codeFrom($('signin-code').value);
  if (!code) {
    say('code-message', 'Type the code your signed-in device shows, or paste its link.');
    $('signin-code').focus();
    return;
  }
  say('code-message', '');
  const done = busy(btn);
  try {
    const r = await api.post('/api/account/signin/code', { code });
    api.setSession(r);
    done();
    view(`Signed in as ${handleOf(r)} on this device.`);
  } catch (e) {
    done();
    say('code-message', words(e));
  }
}

async function recover(btn) {
  const handle = $('rec-handle').value.trim();
  const code = $('rec-code').value.trim();
  if (!handle || !code) {
    say('rec-message', 'Type your handle and one of your recovery codes.');
    $(handle ? 'rec-code' : 'rec-handle').focus();
    return;
  }
  say('rec-message', '');
  const done = busy(btn);
  try {
    const r = await api.post('/api/account/signin/recovery', { handle, code });
    api.setSession(r);
    done();
    const left = r.account ? r.account.recovery_codes_left : undefined;
    view(`Signed in as ${handleOf(r)} with a recovery code${left != null ? `: ${left} left` : ''}. Add a passkey on this device so you need no more.`);
  } catch (e) {
    done();
    say('rec-message', e.code === 'bad_code' ? 'That handle and code do not match, or the code has been used already.' : words(e));
  }
}

// signedOut handles a refusal that says the session is no account any
// more (signed out or deleted elsewhere): the page shows what is true now.
async function signedOut(e) {
  if (e.code !== 'not_signed_in') return false;
  await api.refresh().catch(() => api.setSession(null));
  view('You are not signed in any more: sign in again.');
  return true;
}

async function addPasskey(btn) {
  say('passkey-message', '');
  const done = busy(btn, 'Waiting for your passkey…');
  try {
    const begin = await api.post('/api/account/passkeys/begin', {});
    const credential = await passkey.create(begin.options);
    await api.post('/api/account/passkeys/finish', { ceremony: begin.ceremony, credential });
    await api.refresh().catch(() => {});
    done();
    const s = api.session();
    if (s && s.account) fill(s);
    say('passkey-message', 'Passkey added.', true);
  } catch (e) {
    done();
    if (!await signedOut(e)) say('passkey-message', words(e, true));
  }
}

// LINK_MS is how long a sign-in code lasts (docs/protocol.md).
const LINK_MS = 10 * 60 * 1000;

async function makeLink(btn) {
  say('link-message', '');
  const done = busy(btn);
  try {
    const r = await api.post('/api/account/link', {});
    done();
    btn.textContent = 'Make a new code';
    $('link-code').textContent = r.code;
    $('link-url').value = r.url || `${location.origin}/signin#${r.code}`;
    $('link-box').hidden = false;
    // The expiry by this device's clock; a clock that disagrees with the
    // server's by minutes counts the code's whole life from now.
    let left = Date.parse(r.expires_at) - Date.now();
    if (!(left > 0 && left <= LINK_MS + 60000)) left = LINK_MS;
    const until = Date.now() + left;
    clearInterval(ticker);
    const tick = () => {
      const p = $('link-expiry');
      if (!p) { clearInterval(ticker); return; }
      const s = Math.ceil((until - Date.now()) / 1000);
      if (s <= 0) {
        clearInterval(ticker);
        $('link-box').dataset.expired = 'true';
        p.textContent = 'This code has expired: make a new one.';
        return;
      }
      delete $('link-box').dataset.expired;
      p.textContent = `Works once · expires in ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
    };
    tick();
    ticker = setInterval(tick, 1000);
  } catch (e) {
    done();
    if (!await signedOut(e)) say('link-message', words(e));
  }
}

async function copyLink(btn) {
  const ok = await copy($('link-url').value);
  if (!ok) { $('link-url').select(); return; }
  btn.textContent = 'Copied';
  setTimeout(() => { btn.textContent = 'Copy'; }, 1500);
}

async function signout(btn) {
  say('signout-message', '');
  const done = busy(btn);
  try {
    await api.post('/api/account/signout', {});
    done();
    clearInterval(ticker);
    api.store.set('name', '');
    api.setSession(null);
    resetGuest();
    view('Signed out. Sign in again whenever you like.');
  } catch (e) {
    done();
    if (!await signedOut(e)) say('signout-message', words(e));
  }
}

async function remove(btn) {
  const a = api.account();
  const handle = $('delete-handle').value.trim();
  if (!a || handle !== a.handle) {
    say('delete-message', 'Type your handle exactly as it shows to confirm.');
    return;
  }
  say('delete-message', '');
  const done = busy(btn, 'Deleting…');
  try {
    await api.del('/api/account', { handle });
    done();
    clearInterval(ticker);
    api.store.set('name', '');
    api.setSession(null);
    resetGuest();
    view('Your account is deleted.');
  } catch (e) {
    done();
    if (!await signedOut(e)) say('delete-message', words(e));
  }
}
