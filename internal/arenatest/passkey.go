package arenatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// Passkey is a software passkey authenticator with the browser around it,
// for tests of the account routes: it answers the options a server gives
// for navigator.credentials.create() and .get() with the
// PublicKeyCredential JSON a browser would send back. Its key is an ECDSA
// P-256 key (COSE ES256); its attestation is "none"; it verifies the user
// (flags UP and UV) and counts its signatures. Origin is what its client
// data declares, the page's origin a browser would put there: a test sets
// another to play a page elsewhere.
type Passkey struct {
	Origin string

	key    *ecdsa.PrivateKey
	id     []byte // the credential id, once made
	userID []byte // the user handle the server gave
	rpID   string
	count  uint32
}

// NewPasskey is an authenticator with no credential yet, on a page of the
// origin.
func NewPasskey(origin string) *Passkey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("arenatest: passkey key: %v", err))
	}
	return &Passkey{Origin: origin, key: key}
}

// ID is the credential's id, once Create has made it.
func (p *Passkey) ID() []byte { return p.id }

// Authenticator data flags (WebAuthn §6.1).
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data included
)

var b64 = base64.RawURLEncoding

// creationOptions is what Create reads of the server's options.
type creationOptions struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"publicKey"`
}

// Create makes the credential for the options ({"publicKey": {...}}, as
// the server sends them) and returns the browser's answer to send back.
func (p *Passkey) Create(options []byte) ([]byte, error) {
	var opts creationOptions
	if err := json.Unmarshal(options, &opts); err != nil {
		return nil, fmt.Errorf("arenatest: creation options: %w", err)
	}
	o := opts.PublicKey
	if o.Challenge == "" || o.RP.ID == "" || o.User.ID == "" {
		return nil, errors.New("arenatest: creation options without a challenge, rp.id or user.id")
	}
	userID, err := b64.DecodeString(o.User.ID)
	if err != nil {
		return nil, fmt.Errorf("arenatest: user.id: %w", err)
	}
	p.id = make([]byte, 16)
	_, _ = rand.Read(p.id)
	p.userID, p.rpID = userID, o.RP.ID

	// The public key as COSE_Key: EC2, ES256, P-256, x, y.
	pub, err := p.key.PublicKey.ECDH()
	if err != nil {
		return nil, fmt.Errorf("arenatest: public key: %w", err)
	}
	raw := pub.Bytes() // 0x04 || x || y
	enc, err := cbor.CTAP2EncOptions().EncMode()
	if err != nil {
		return nil, err
	}
	coseKey, err := enc.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: raw[1:33], -3: raw[33:65]})
	if err != nil {
		return nil, fmt.Errorf("arenatest: COSE key: %w", err)
	}
	attested := make([]byte, 0, 16+2+len(p.id)+len(coseKey))
	attested = append(attested, make([]byte, 16)...) // AAGUID: zero
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(p.id)))
	attested = append(attested, p.id...)
	attested = append(attested, coseKey...)
	authData := append(p.authData(flagUP|flagUV|flagAT), attested...)
	attObj, err := enc.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": authData})
	if err != nil {
		return nil, fmt.Errorf("arenatest: attestation object: %w", err)
	}
	clientData, err := p.clientData("webauthn.create", o.Challenge)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(p.id), "rawId": b64.EncodeToString(p.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{"credProps": map[string]any{"rk": true}},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(clientData),
			"attestationObject": b64.EncodeToString(attObj),
			"transports":        []string{"internal"},
		},
	})
}

// requestOptions is what Get reads of the server's options.
type requestOptions struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RPID      string `json:"rpId"`
	} `json:"publicKey"`
}

// Get signs in with the credential Create made, for the options
// ({"publicKey": {...}}), and returns the browser's answer to send back.
func (p *Passkey) Get(options []byte) ([]byte, error) {
	if p.id == nil {
		return nil, errors.New("arenatest: the passkey has no credential: Create first")
	}
	var opts requestOptions
	if err := json.Unmarshal(options, &opts); err != nil {
		return nil, fmt.Errorf("arenatest: request options: %w", err)
	}
	o := opts.PublicKey
	if o.Challenge == "" || o.RPID == "" {
		return nil, errors.New("arenatest: request options without a challenge or rpId")
	}
	if o.RPID != p.rpID {
		return nil, fmt.Errorf("arenatest: the passkey is for %q, not %q", p.rpID, o.RPID)
	}
	p.count++
	authData := p.authData(flagUP | flagUV)
	clientData, err := p.clientData("webauthn.get", o.Challenge)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte(nil), authData...), sum[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, p.key, digest[:])
	if err != nil {
		return nil, fmt.Errorf("arenatest: sign: %w", err)
	}
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(p.id), "rawId": b64.EncodeToString(p.id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64.EncodeToString(clientData),
			"authenticatorData": b64.EncodeToString(authData),
			"signature":         b64.EncodeToString(sig),
			"userHandle":        b64.EncodeToString(p.userID),
		},
	})
}

// authData is the authenticator data's head: the RP ID's hash, the flags
// and the signature count.
func (p *Passkey) authData(flags byte) []byte {
	rpHash := sha256.Sum256([]byte(p.rpID))
	out := append(rpHash[:], flags)
	return binary.BigEndian.AppendUint32(out, p.count)
}

// clientData is the client data a browser collects for the ceremony.
func (p *Passkey) clientData(typ, challenge string) ([]byte, error) {
	data, err := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": p.Origin, "crossOrigin": false})
	if err != nil {
		return nil, fmt.Errorf("arenatest: client data: %w", err)
	}
	return data, nil
}
