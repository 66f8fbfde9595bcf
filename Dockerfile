# Multi-stage build: a static arena binary (pure Go, no cgo: the embedded
# SQLite store is modernc.org/sqlite) on a minimal runtime image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# GOEXPERIMENT=simd builds in the engine's triad solver (see the Makefile).
RUN CGO_ENABLED=0 GOEXPERIMENT=simd go build -trimpath -ldflags="-s -w" -o /out/arena ./cmd/arena
# The embedded store's directory, made here because the runtime image has
# no shell: copied below owned by the user the server runs as.
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/arena /usr/local/bin/arena
# The embedded store's default location (./data/arena.db), when
# DATABASE_URL is unset: writable by the server's user (nonroot, uid 65532),
# not root's as a WORKDIR alone would leave it. Mount a volume here to keep
# it across containers.
COPY --from=build --chown=65532:65532 /out/data /var/lib/arena
WORKDIR /var/lib/arena
ENV LISTEN_ADDR=:8080
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/arena"]
CMD ["serve"]
