// passkey.js: the browser's side of a WebAuthn ceremony. The server sends
// its options as JSON, where every byte string (the challenge, the user's
// id, credential ids) is base64url; navigator.credentials wants them as
// ArrayBuffers, and answers a PublicKeyCredential whose byte strings go
// back as base64url in the JSON the server reads.

// fromB64url decodes base64url (padded or not) into an ArrayBuffer.
export function fromB64url(s) {
  const b64 = String(s).replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes.buffer;
}

// toB64url encodes an ArrayBuffer (or a view of one) as base64url without
// padding.
export function toB64url(buf) {
  const bytes = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const ids = (list) => (list || []).map((c) => ({ ...c, id: fromB64url(c.id) }));

// creationOptions turns the server's {"publicKey": {...}} for a new
// passkey into what navigator.credentials.create takes.
export function creationOptions(options) {
  const pk = (options && options.publicKey) || options || {};
  const out = { ...pk, challenge: fromB64url(pk.challenge), user: { ...pk.user, id: fromB64url(pk.user.id) } };
  if (pk.excludeCredentials) out.excludeCredentials = ids(pk.excludeCredentials);
  return { publicKey: out };
}

// requestOptions turns the server's {"publicKey": {...}} for a sign-in
// into what navigator.credentials.get takes.
export function requestOptions(options) {
  const pk = (options && options.publicKey) || options || {};
  const out = { ...pk, challenge: fromB64url(pk.challenge) };
  if (pk.allowCredentials) out.allowCredentials = ids(pk.allowCredentials);
  return { publicKey: out };
}

// credentialJSON is the PublicKeyCredential as the server reads it: an
// attestation (a new passkey) or an assertion (a sign-in).
export function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    if (typeof r.getTransports === 'function') response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle && r.userHandle.byteLength) response.userHandle = toB64url(r.userHandle);
  }
  const out = { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response };
  if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
  out.clientExtensionResults = typeof cred.getClientExtensionResults === 'function' ? cred.getClientExtensionResults() : {};
  return out;
}

// supported says whether this browser can use passkeys at all.
export const supported = () => typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;

// create makes a passkey with the server's options; get signs in with
// one. Both answer the credential's JSON, or throw the browser's error
// (see problem).
export async function create(options) {
  if (!supported()) throw unsupported();
  return credentialJSON(await navigator.credentials.create(creationOptions(options)));
}

export async function get(options) {
  if (!supported()) throw unsupported();
  return credentialJSON(await navigator.credentials.get(requestOptions(options)));
}

function unsupported() {
  const e = new Error('passkeys are not supported');
  e.name = 'NotSupportedError';
  return e;
}

// problem says in words why the browser's passkey prompt failed; '' when
// the error is not the browser's (a refused request, for the caller).
export function problem(e, creating) {
  switch (e && e.name) {
    case 'NotAllowedError':
    case 'AbortError':
      return creating
        ? 'The passkey prompt was closed or timed out. Nothing was changed: try again when you are ready.'
        : 'The passkey prompt was closed, or this device has no passkey for this site. Try again, or use a code below.';
    case 'InvalidStateError':
      return creating ? 'This device already holds a passkey for this account.' : 'This passkey cannot be used here.';
    case 'NotSupportedError':
      return 'This browser cannot use passkeys. Use a code from another device, or a recovery code.';
    case 'SecurityError':
      return 'Passkeys need the site\'s own secure address (https).';
    case 'ConstraintError':
      return 'This device cannot make the kind of passkey needed (one it can find by itself).';
    default:
      return '';
  }
}
