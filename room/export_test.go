package room

// RecordOf is a logged event as a room hands it to the store (encode):
// the event's JSON as clients' frames are written, dated as the game took
// it.
func RecordOf(l Logged) Record { return record(l, appendEvent(nil, l.Event)) }
