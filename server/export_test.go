package server

// ValidFrame is validFrame, for the WebSocket tests' client, which checks
// every frame it reads with it.
var ValidFrame = validFrame
