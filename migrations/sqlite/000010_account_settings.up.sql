-- An account's settings as its browser client keeps them (a JSON object,
-- opaque to the server), so that they follow the account to every
-- browser; NULL until saved, and for a guest, whose settings stay in
-- their browser.
ALTER TABLE players ADD COLUMN settings TEXT;
