// sound.js: the few short tones the settings may turn on, made on the spot
// (no files to load).

const TONES = { place: [[660, 0.05]], conflict: [[220, 0.09], [180, 0.12]], finish: [[523, 0.1], [659, 0.1], [784, 0.18]] };
let audio = null;

// event plays what event ev sounds like to player me: their own digit,
// clash or finish (or their team's).
export function event(ev, me) {
  const mine = ev.player === me;
  if (ev.type === 'move' && mine && ev.digit) play('place');
  else if (ev.type === 'error' && ev.code === 'conflict' && mine) play('conflict');
  else if (ev.type === 'finish' && (!ev.player || mine)) play('finish');
}

// play plays the tones of kind.
function play(kind) {
  if (!TONES[kind]) return;
  try {
    audio = audio || new AudioContext();
    let t = audio.currentTime;
    for (const [freq, len] of TONES[kind]) {
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, t);
      gain.gain.exponentialRampToValueAtTime(0.001, t + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + len);
      t += len;
    }
    document.documentElement.dataset.blip = kind; // for tests: the last sound played
  } catch { /* no audio here */ }
}
